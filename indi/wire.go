// The wire reader turns the byte stream of an INDI server into one Message per top-level
// element. INDI is not one XML document but an endless run of small ones, and the other end may
// be a buggy driver or a hostile peer, so this is a streaming tokenizer of our own with hard caps
// instead of encoding/xml: every element, attribute, name and child list has a size limit, and
// exceeding one, invalid UTF-8 or broken markup ends the stream with a *ProtocolError while
// memory stays bounded by Limits. Well-formed elements that are not INDI 1.7 (unknown tags,
// children of the wrong kind) are skipped and reported as a *RefusedError, and reading goes on:
// one confused driver must not cut a whole telescope off.

package indi

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Limits bound what a Reader accepts. Each must be positive; zero fields take the default.
type Limits struct {
	// MaxMessageBytes bounds one top-level element, markup and leading whitespace included.
	MaxMessageBytes int
	// MaxAttrBytes bounds one attribute value after entities are decoded.
	MaxAttrBytes int
	// MaxTextBytes bounds the text of one element after entities are decoded.
	MaxTextBytes int
	// MaxNameBytes bounds tag and attribute names.
	MaxNameBytes int
	// MaxAttrs bounds the attributes of one tag.
	MaxAttrs int
	// MaxChildren bounds the elements of one vector.
	MaxChildren int
}

// DefaultLimits fit every vector the INDI simulators and common drivers send, with BLOBs off,
// by a wide margin.
var DefaultLimits = Limits{
	MaxMessageBytes: 1 << 20,
	MaxAttrBytes:    8 << 10,
	MaxTextBytes:    64 << 10,
	MaxNameBytes:    64,
	MaxAttrs:        16,
	MaxChildren:     1024,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxMessageBytes > 0 {
		d.MaxMessageBytes = l.MaxMessageBytes
	}
	if l.MaxAttrBytes > 0 {
		d.MaxAttrBytes = l.MaxAttrBytes
	}
	if l.MaxTextBytes > 0 {
		d.MaxTextBytes = l.MaxTextBytes
	}
	if l.MaxNameBytes > 0 {
		d.MaxNameBytes = l.MaxNameBytes
	}
	if l.MaxAttrs > 0 {
		d.MaxAttrs = l.MaxAttrs
	}
	if l.MaxChildren > 0 {
		d.MaxChildren = l.MaxChildren
	}
	return d
}

// Message is one top-level INDI element: a vector with its elements, a delProperty, a message,
// a getProperties, and so on. Strings are immutable and may share one backing allocation.
type Message struct {
	Tag      string
	Attrs    []Attr
	Text     string // trimmed text directly inside the element (enableBLOB has some)
	Children []Child
}

// Child is one element of a vector, such as <oneNumber name="RA">12.5</oneNumber>.
type Child struct {
	Tag   string
	Attrs []Attr
	Text  string // trimmed of surrounding whitespace, as INDI's own parser does
}

// Attr is one attribute.
type Attr struct{ Name, Value string }

// Attr returns the value of the named attribute, or "".
func (m *Message) Attr(name string) string { return attrOf(m.Attrs, name) }

// Attr returns the value of the named attribute, or "".
func (c *Child) Attr(name string) string { return attrOf(c.Attrs, name) }

func attrOf(attrs []Attr, name string) string {
	for _, a := range attrs {
		if a.Name == name {
			return a.Value
		}
	}
	return ""
}

// ProtocolError ends a stream: the bytes at Offset are not acceptable INDI XML, or exceed a
// limit. Nothing after it is read.
type ProtocolError struct {
	Offset int64
	Reason string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("malformed INDI stream at byte %d: %s", e.Offset, e.Reason)
}

// RefusedStream marks a ProtocolError as a stream a ConnError says we refuse.
func (e *ProtocolError) RefusedStream() {}

// RefusedError reports a well-formed element that is not INDI 1.7 and was skipped. The stream
// goes on; call Next again.
type RefusedError struct {
	Offset int64
	Tag    string
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused <%s> at byte %d: %s", e.Tag, e.Offset, e.Reason)
}

// childTag maps each INDI 1.7 top-level tag to the tag its children must have ("" = none).
var childTag = map[string]string{
	"defTextVector":   "defText",
	"defNumberVector": "defNumber",
	"defSwitchVector": "defSwitch",
	"defLightVector":  "defLight",
	"defBLOBVector":   "defBLOB",
	"setTextVector":   "oneText",
	"setNumberVector": "oneNumber",
	"setSwitchVector": "oneSwitch",
	"setLightVector":  "oneLight",
	"setBLOBVector":   "oneBLOB",
	"newTextVector":   "oneText",
	"newNumberVector": "oneNumber",
	"newSwitchVector": "oneSwitch",
	"newBLOBVector":   "oneBLOB",
	"delProperty":     "",
	"message":         "",
	"getProperties":   "",
	"enableBLOB":      "",
	"pingRequest":     "",
	"pingReply":       "",
}

// words are the strings that recur in every stream; returning these constants instead of fresh
// copies saves most of the reader's allocations.
var words = func() map[string]string {
	m := map[string]string{}
	for k, v := range childTag {
		m[k] = k
		if v != "" {
			m[v] = v
		}
	}
	for _, w := range []string{
		"device", "name", "label", "group", "state", "perm", "rule", "timeout", "timestamp",
		"message", "format", "min", "max", "step", "size", "version", "uid", "enclen",
		"On", "Off", "Idle", "Ok", "Busy", "Alert", "ro", "wo", "rw",
		"OneOfMany", "AtMostOne", "AnyOfMany", "Never", "Also", "Only", "0", "1", "60",
	} {
		m[w] = w
	}
	return m
}()

const (
	maxInterned     = 4096 // distinct strings remembered per Reader
	maxInternedLen  = 64
	maxSkipDepth    = 32 // nesting allowed inside a skipped element
	readBufferBytes = 32 << 10
)

// Reader reads Messages from an INDI stream. It is not safe for concurrent use.
type Reader struct {
	src      io.Reader
	buf      []byte
	pos, end int
	off      int64 // stream offset of buf[0]
	rerr     error // error from src, returned once the buffer is drained
	err      error // sticky fatal error
	lim      Limits
	start    int64 // offset where the current message began

	// Scratch for the message being read; reused, and bounded by the limits.
	sb     []byte // decoded attribute values and texts
	attrs  []attrRef
	kids   []childRef
	stack  []string // open tags while skipping
	intern map[string]string
}

type attrRef struct {
	name   string
	lo, hi int
}

type childRef struct {
	tag            string
	attrLo, attrHi int
	textLo, textHi int
}

// NewReader reads INDI messages from r within the given limits (zero fields: DefaultLimits).
func NewReader(r io.Reader, lim Limits) *Reader {
	intern := make(map[string]string, len(words)+64)
	for k, v := range words {
		intern[k] = v
	}
	return &Reader{
		src:    r,
		buf:    make([]byte, readBufferBytes),
		lim:    lim.withDefaults(),
		intern: intern,
	}
}

// Next returns the next message. io.EOF means the stream ended cleanly between messages. A
// *RefusedError is not fatal: the element was skipped and Next may be called again. Any other
// error is fatal and returned again by every later call.
func (r *Reader) Next() (*Message, error) {
	if r.err != nil {
		return nil, r.err
	}
	m, err := r.next()
	if err != nil {
		var refused *RefusedError
		if !errors.As(err, &refused) {
			r.err = err
		}
		r.resetScratch()
		return nil, err
	}
	r.resetScratch()
	return m, nil
}

// resetScratch drops scratch buffers that a large message grew, so an idle Reader holds little.
func (r *Reader) resetScratch() {
	if cap(r.sb) > 64<<10 {
		r.sb = nil
	}
	if cap(r.kids) > 256 {
		r.kids = nil
	}
	r.sb, r.attrs, r.kids, r.stack = r.sb[:0], r.attrs[:0], r.kids[:0], r.stack[:0]
}

// footprint is the memory the Reader holds onto between messages; tests bound it.
func (r *Reader) footprint() int {
	return cap(r.buf) + cap(r.sb) + cap(r.attrs)*40 + cap(r.kids)*64 + len(r.intern)*(2*maxInternedLen)
}

func (r *Reader) offset() int64 { return r.off + int64(r.pos) }

func (r *Reader) fail(format string, args ...any) error {
	return &ProtocolError{Offset: r.offset(), Reason: fmt.Sprintf(format, args...)}
}

// fill makes at least one more byte available, or returns the reason it cannot.
func (r *Reader) fill() error {
	if r.pos < r.end {
		return nil
	}
	if r.rerr != nil {
		return r.rerr
	}
	r.off += int64(r.end)
	r.pos, r.end = 0, 0
	for tries := 0; tries < 100; tries++ {
		n, err := r.src.Read(r.buf)
		if n < 0 || n > len(r.buf) {
			return r.fail("reader returned %d bytes", n)
		}
		r.end = n
		if err != nil {
			r.rerr = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}

// budget fails when the current message has grown past MaxMessageBytes.
func (r *Reader) budget() error {
	if r.offset()-r.start > int64(r.lim.MaxMessageBytes) {
		return r.fail("element longer than %d bytes", r.lim.MaxMessageBytes)
	}
	return nil
}

// peek returns the next byte without consuming it; eof is true at the end of the stream.
func (r *Reader) peek() (c byte, err error) {
	if r.pos >= r.end {
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	return r.buf[r.pos], nil
}

// unexpected turns the end of the stream in the middle of a message into a protocol error;
// other errors (a reset connection) stay as they are.
func (r *Reader) unexpected(err error) error {
	if err == io.EOF {
		return r.fail("stream ended inside an element")
	}
	return err
}

// must returns the next byte, consuming it; the end of the stream is an error here.
func (r *Reader) must() (byte, error) {
	c, err := r.peek()
	if err != nil {
		return 0, r.unexpected(err)
	}
	r.pos++
	return c, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':'
}

func isNameByte(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '-' || c == '.'
}

// skipSpace consumes whitespace, bounded by the message budget.
func (r *Reader) skipSpace() error {
	for {
		for r.pos < r.end && isSpace(r.buf[r.pos]) {
			r.pos++
		}
		if err := r.budget(); err != nil {
			return err
		}
		if r.pos < r.end {
			return nil
		}
		if err := r.fill(); err != nil {
			return err
		}
	}
}

// name reads an XML name (ASCII only: INDI has no other) and returns it as an interned string.
func (r *Reader) name() (string, error) {
	c, err := r.peek()
	if err != nil {
		return "", r.unexpected(err)
	}
	if !isNameStart(c) {
		return "", r.fail("expected a name, found %q", c)
	}
	// Most names lie whole in the buffer: intern them straight from it.
	i := r.pos
	for i < r.end && i-r.pos <= r.lim.MaxNameBytes && isNameByte(r.buf[i]) {
		i++
	}
	if i < r.end && i-r.pos <= r.lim.MaxNameBytes {
		s := r.internBytes(r.buf[r.pos:i])
		r.pos = i
		return s, nil
	}
	var tmp [64]byte
	n := tmp[:0]
	for {
		c, err := r.peek()
		if err != nil {
			return "", r.unexpected(err)
		}
		if !isNameByte(c) {
			break
		}
		if len(n) >= r.lim.MaxNameBytes {
			return "", r.fail("name longer than %d bytes", r.lim.MaxNameBytes)
		}
		n = append(n, c)
		r.pos++
	}
	return r.internBytes(n), nil
}

func (r *Reader) internBytes(b []byte) string {
	if s, ok := r.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(s) <= maxInternedLen && len(r.intern) < maxInterned+len(words) {
		r.intern[s] = s
	}
	return s
}

// value returns the constant for the values every switch and light vector repeats.
func value(b []byte) (string, bool) {
	switch string(b) {
	case "On":
		return "On", true
	case "Off":
		return "Off", true
	case "Idle":
		return "Idle", true
	case "Ok":
		return "Ok", true
	case "Busy":
		return "Busy", true
	case "Alert":
		return "Alert", true
	}
	return "", false
}

// internable reports the attributes whose values repeat from update to update.
func internable(attr string) bool {
	switch attr {
	case "device", "name", "label", "group", "state", "perm", "rule", "timeout", "format", "min", "max", "step":
		return true
	}
	return false
}

// entity decodes one reference after '&' and appends it to r.sb.
func (r *Reader) entity() error {
	var tmp [12]byte
	n := tmp[:0]
	for {
		c, err := r.must()
		if err != nil {
			return err
		}
		if c == ';' {
			break
		}
		if len(n) == len(tmp) {
			return r.fail("entity reference too long")
		}
		n = append(n, c)
	}
	switch string(n) {
	case "lt":
		r.sb = append(r.sb, '<')
	case "gt":
		r.sb = append(r.sb, '>')
	case "amp":
		r.sb = append(r.sb, '&')
	case "quot":
		r.sb = append(r.sb, '"')
	case "apos":
		r.sb = append(r.sb, '\'')
	default:
		if len(n) < 2 || n[0] != '#' {
			return r.fail("unknown entity &%s;", n)
		}
		var v rune
		digits, base := n[1:], rune(10)
		if digits[0] == 'x' {
			digits, base = digits[1:], 16
		}
		if len(digits) == 0 || len(digits) > 7 {
			return r.fail("bad character reference &%s;", n)
		}
		for _, d := range digits {
			var x rune
			switch {
			case d >= '0' && d <= '9':
				x = rune(d - '0')
			case base == 16 && d >= 'a' && d <= 'f':
				x = rune(d-'a') + 10
			case base == 16 && d >= 'A' && d <= 'F':
				x = rune(d-'A') + 10
			default:
				return r.fail("bad character reference &%s;", n)
			}
			v = v*base + x
		}
		if !xmlChar(v) {
			return r.fail("character reference &%s; is not an XML character", n)
		}
		r.sb = utf8.AppendRune(r.sb, v)
	}
	return nil
}

func xmlChar(v rune) bool {
	return v == 0x9 || v == 0xA || v == 0xD || v >= 0x20 && v <= 0xD7FF ||
		v >= 0xE000 && v <= 0xFFFD || v >= 0x10000 && v <= 0x10FFFF
}

// checkChars validates decoded bytes: UTF-8, and no control characters XML forbids.
func (r *Reader) checkChars(b []byte) error {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
		} else if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return r.fail("control character %#x", c)
		}
	}
	if ascii {
		return nil
	}
	for len(b) > 0 {
		v, size := utf8.DecodeRune(b)
		if v == utf8.RuneError && size <= 1 {
			return r.fail("invalid UTF-8")
		}
		if !xmlChar(v) {
			return r.fail("character %U is not allowed in XML", v)
		}
		b = b[size:]
	}
	return nil
}

// attrValue reads a quoted value into r.sb and returns its bounds there.
func (r *Reader) attrValue() (lo, hi int, err error) {
	q, err := r.must()
	if err != nil {
		return 0, 0, err
	}
	if q != '"' && q != '\'' {
		return 0, 0, r.fail("attribute value must be quoted")
	}
	lo = len(r.sb)
	for {
		if r.pos >= r.end {
			if err := r.fill(); err != nil {
				return 0, 0, r.unexpected(err)
			}
		}
		// Copy the run of plain bytes in one go.
		i := r.pos
		for i < r.end {
			c := r.buf[i]
			if c == q || c == '&' || c == '<' || c == '\n' || c == '\t' || c == '\r' {
				break
			}
			i++
		}
		r.sb = append(r.sb, r.buf[r.pos:i]...)
		r.pos = i
		if len(r.sb)-lo > r.lim.MaxAttrBytes {
			return 0, 0, r.fail("attribute value longer than %d bytes", r.lim.MaxAttrBytes)
		}
		if err := r.budget(); err != nil {
			return 0, 0, err
		}
		if i == r.end {
			continue
		}
		c := r.buf[i]
		r.pos++
		switch c {
		case q:
			if err := r.checkChars(r.sb[lo:]); err != nil {
				return 0, 0, err
			}
			return lo, len(r.sb), nil
		case '<':
			return 0, 0, r.fail("'<' in attribute value")
		case '&':
			if err := r.entity(); err != nil {
				return 0, 0, err
			}
		default: // XML normalizes literal whitespace in attributes to spaces
			r.sb = append(r.sb, ' ')
		}
	}
}

// tag reads the rest of a start tag after its name: attributes up to '>' or '/>'.
func (r *Reader) tag() (selfClosing bool, err error) {
	count := 0
	for {
		before := r.offset()
		if err := r.skipSpace(); err != nil {
			return false, r.unexpected(err)
		}
		spaced := r.offset() > before
		c, err := r.must()
		if err != nil {
			return false, err
		}
		switch c {
		case '>':
			return false, nil
		case '/':
			c, err := r.must()
			if err != nil {
				return false, err
			}
			if c != '>' {
				return false, r.fail("expected '>' after '/'")
			}
			return true, nil
		}
		r.pos--
		if !isNameStart(c) {
			return false, r.fail("unexpected %q in a tag", c)
		}
		if !spaced {
			return false, r.fail("attributes must be separated by whitespace")
		}
		name, err := r.name()
		if err != nil {
			return false, err
		}
		if err := r.skipSpace(); err != nil {
			return false, r.unexpected(err)
		}
		if c, err := r.must(); err != nil {
			return false, err
		} else if c != '=' {
			return false, r.fail("expected '=' after attribute %s", name)
		}
		if err := r.skipSpace(); err != nil {
			return false, r.unexpected(err)
		}
		lo, hi, err := r.attrValue()
		if err != nil {
			return false, err
		}
		count++
		if count > r.lim.MaxAttrs {
			return false, r.fail("more than %d attributes", r.lim.MaxAttrs)
		}
		for _, a := range r.attrs[len(r.attrs)-count+1:] {
			if a.name == name {
				return false, r.fail("duplicate attribute %s", name)
			}
		}
		r.attrs = append(r.attrs, attrRef{name: name, lo: lo, hi: hi})
	}
}

// text reads character data up to the next '<' into r.sb (or discards it when keep is false,
// still checking it) and returns its trimmed bounds.
func (r *Reader) text(keep bool) (lo, hi int, err error) {
	lo = len(r.sb)
	for {
		if r.pos >= r.end {
			if err := r.fill(); err != nil {
				return 0, 0, r.unexpected(err)
			}
		}
		i := r.pos
		for i < r.end {
			c := r.buf[i]
			if c == '<' || c == '&' {
				break
			}
			i++
		}
		r.sb = append(r.sb, r.buf[r.pos:i]...)
		r.pos = i
		if err := r.budget(); err != nil {
			return 0, 0, err
		}
		if len(r.sb)-lo > r.lim.MaxTextBytes {
			return 0, 0, r.fail("text longer than %d bytes", r.lim.MaxTextBytes)
		}
		if i < r.end && r.buf[i] == '&' {
			r.pos++
			if err := r.entity(); err != nil {
				return 0, 0, err
			}
			continue
		}
		if i < r.end { // '<'
			break
		}
		// Discarded text is checked and dropped chunk by chunk, keeping memory flat; a chunk
		// boundary may split a UTF-8 sequence, so keep its tail.
		if !keep && len(r.sb)-lo > 4096 {
			cut := len(r.sb) - utf8.UTFMax
			for cut > lo && !utf8.RuneStart(r.sb[cut]) {
				cut--
			}
			if err := r.checkChars(r.sb[lo:cut]); err != nil {
				return 0, 0, err
			}
			r.sb = append(r.sb[:lo], r.sb[cut:]...)
		}
	}
	if err := r.checkChars(r.sb[lo:]); err != nil {
		return 0, 0, err
	}
	if !keep {
		r.sb = r.sb[:lo]
		return lo, lo, nil
	}
	start := lo
	hi = len(r.sb)
	for lo < hi && isSpace(r.sb[lo]) {
		lo++
	}
	for hi > lo && isSpace(r.sb[hi-1]) {
		hi--
	}
	if lo == hi { // whitespace between elements: keep nothing
		r.sb = r.sb[:start]
		return start, start, nil
	}
	return lo, hi, nil
}

// special consumes a comment or processing instruction after '<'; ok is false if the bytes
// there are neither.
func (r *Reader) special() (ok bool, err error) {
	c, err := r.peek()
	if err != nil {
		return false, r.unexpected(err)
	}
	var end string
	switch c {
	case '?':
		r.pos++
		end = "?>"
	case '!':
		r.pos++
		for range 2 {
			c, err := r.must()
			if err != nil {
				return false, err
			}
			if c != '-' {
				return false, r.fail("only comments may start with '<!' (no DOCTYPE or CDATA in INDI)")
			}
		}
		end = "-->"
	default:
		return false, nil
	}
	var last [3]byte // the last bytes read, newest at the end
	for {
		c, err := r.must()
		if err != nil {
			return false, err
		}
		if err := r.budget(); err != nil {
			return false, err
		}
		last[0], last[1], last[2] = last[1], last[2], c
		if string(last[3-len(end):]) == end {
			return true, nil
		}
	}
}

// closeTag reads "name>" after "</" and checks it closes want.
func (r *Reader) closeTag(want string) error {
	name, err := r.name()
	if err != nil {
		return err
	}
	if name != want {
		return r.fail("</%s> closes <%s>", name, want)
	}
	if err := r.skipSpace(); err != nil {
		return r.unexpected(err)
	}
	if c, err := r.must(); err != nil {
		return err
	} else if c != '>' {
		return r.fail("expected '>' to close </%s", name)
	}
	return nil
}

// next reads one top-level element.
func (r *Reader) next() (*Message, error) {
	r.start = r.offset()
	if err := r.prolog(); err != nil {
		return nil, err
	}
	at := r.offset() - 1
	c, err := r.peek()
	if err != nil {
		return nil, r.unexpected(err)
	}
	if c == '/' {
		return nil, r.fail("close tag without an open element")
	}
	tag, err := r.name()
	if err != nil {
		return nil, err
	}
	want, known := childTag[tag]
	if !known {
		if err := r.skip(tag); err != nil {
			return nil, err
		}
		return nil, &RefusedError{Offset: at, Tag: tag, Reason: "not an INDI 1.7 element"}
	}
	self, err := r.tag()
	if err != nil {
		return nil, err
	}
	topAttrs := len(r.attrs)
	textLo, textHi, refused := 0, 0, ""
	if !self {
		if textLo, textHi, refused, err = r.content(tag, want); err != nil {
			return nil, err
		}
	}
	if refused != "" {
		return nil, &RefusedError{Offset: at, Tag: tag, Reason: refused}
	}
	return r.build(tag, topAttrs, textLo, textHi), nil
}

// prolog skips what may stand between messages: whitespace, comments and processing
// instructions. It returns once it has read the '<' of the next element.
func (r *Reader) prolog() error {
	for {
		if err := r.skipSpace(); err != nil {
			return err // io.EOF here, between messages, is a clean end
		}
		c, _ := r.peek()
		if c != '<' {
			return r.fail("text %q outside any element", c)
		}
		r.pos++
		ok, err := r.special()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
	}
}

// content reads what stands between a top-level element's open tag and its close tag: its
// text (where textLo:textHi is in the scratch) and its children named want, skipping the
// others. refused says why a well-formed element is not INDI 1.7, or is "".
func (r *Reader) content(tag, want string) (textLo, textHi int, refused string, err error) {
	for {
		lo, hi, err := r.text(true)
		if err != nil {
			return 0, 0, "", err
		}
		if hi > lo {
			if textHi > textLo {
				refused = "text around its elements"
			}
			textLo, textHi = lo, hi
		}
		r.pos++ // '<'
		ok, err := r.special()
		if err != nil {
			return 0, 0, "", err
		}
		if ok {
			continue
		}
		c, err := r.peek()
		if err != nil {
			return 0, 0, "", r.unexpected(err)
		}
		if c == '/' {
			r.pos++
			return textLo, textHi, refused, r.closeTag(tag)
		}
		child, err := r.name()
		if err != nil {
			return 0, 0, "", err
		}
		if child != want || want == "" {
			if refused == "" {
				refused = fmt.Sprintf("unexpected <%s> inside it", child)
			}
			if err := r.skip(child); err != nil {
				return 0, 0, "", err
			}
			continue
		}
		if err := r.child(child); err != nil {
			return 0, 0, "", err
		}
	}
}

// child reads one vector element after its name: attributes, text and close tag.
func (r *Reader) child(tag string) error {
	if len(r.kids) >= r.lim.MaxChildren {
		return r.fail("more than %d elements in one vector", r.lim.MaxChildren)
	}
	attrLo := len(r.attrs)
	self, err := r.tag()
	if err != nil {
		return err
	}
	k := childRef{tag: tag, attrLo: attrLo, attrHi: len(r.attrs)}
	if !self {
		// oneBLOB carries base64 data we never asked for: check it, count it, drop it.
		keep := tag != "oneBLOB"
		for {
			lo, hi, err := r.text(keep)
			if err != nil {
				return err
			}
			if hi > lo {
				k.textLo, k.textHi = lo, hi
			}
			r.pos++ // '<'
			ok, err := r.special()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
		}
		c, err := r.peek()
		if err != nil {
			return r.unexpected(err)
		}
		if c != '/' {
			return r.fail("<%s> may hold only text", tag)
		}
		r.pos++
		if err := r.closeTag(tag); err != nil {
			return err
		}
	}
	r.kids = append(r.kids, k)
	return nil
}

// skip consumes an element whose name has been read, checking its markup, keeping nothing.
func (r *Reader) skip(tag string) error {
	mark := len(r.attrs)
	defer func() { r.attrs = r.attrs[:mark] }()
	sb := len(r.sb)
	defer func() { r.sb = r.sb[:sb] }()
	r.stack = append(r.stack[:0], tag)
	for len(r.stack) > 0 {
		self, err := r.tag()
		r.attrs, r.sb = r.attrs[:mark], r.sb[:sb]
		if err != nil {
			return err
		}
		if self {
			r.stack = r.stack[:len(r.stack)-1]
		}
		for len(r.stack) > 0 {
			if _, _, err := r.text(false); err != nil {
				return err
			}
			r.pos++ // '<'
			ok, err := r.special()
			if err != nil {
				return err
			}
			if ok {
				continue
			}
			c, err := r.peek()
			if err != nil {
				return r.unexpected(err)
			}
			if c == '/' {
				r.pos++
				if err := r.closeTag(r.stack[len(r.stack)-1]); err != nil {
					return err
				}
				r.stack = r.stack[:len(r.stack)-1]
				continue
			}
			name, err := r.name()
			if err != nil {
				return err
			}
			if len(r.stack) >= maxSkipDepth {
				return r.fail("elements nested deeper than %d", maxSkipDepth)
			}
			r.stack = append(r.stack, name)
			break
		}
	}
	return nil
}

// build turns the scratch of a finished message into a Message with few allocations: one
// string holds every decoded value that is not interned.
func (r *Reader) build(tag string, topAttrs, textLo, textHi int) *Message {
	all := string(r.sb)
	attrs := make([]Attr, len(r.attrs))
	for i, a := range r.attrs {
		attrs[i] = Attr{Name: a.name}
		v := r.sb[a.lo:a.hi]
		if internable(a.name) {
			attrs[i].Value = r.internBytes(v)
		} else {
			attrs[i].Value = all[a.lo:a.hi]
		}
	}
	m := &Message{Tag: tag, Attrs: attrs[:topAttrs:topAttrs], Text: all[textLo:textHi]}
	if len(r.kids) > 0 {
		m.Children = make([]Child, len(r.kids))
		for i, k := range r.kids {
			text := r.sb[k.textLo:k.textHi]
			m.Children[i] = Child{Tag: k.tag, Attrs: attrs[k.attrLo:k.attrHi:k.attrHi]}
			if w, ok := value(text); ok {
				m.Children[i].Text = w
			} else {
				m.Children[i].Text = all[k.textLo:k.textHi]
			}
		}
	}
	return m
}
