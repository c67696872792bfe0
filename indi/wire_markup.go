// The wire reader's markup: character data, comments and processing instructions, closing
// tags, and the elements built from them: one top-level message with its children, or a
// skipped element that is not INDI 1.7 (wire.go has the types and the buffer, wire_lex.go the
// names, values and attributes).
package indi

import (
	"fmt"
	"unicode/utf8"
)

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
