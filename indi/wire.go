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
