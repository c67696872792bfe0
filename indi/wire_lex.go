// The wire reader's lexing: XML names, attribute values, entities, the characters XML allows,
// and a tag's attributes, each read from the Reader's buffer within its Limits (wire.go).
package indi

import "unicode/utf8"

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
