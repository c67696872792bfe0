// The fuzz target feeds arbitrary bytes through the reader, the codec and the store, the path
// every byte from a server takes. It checks what must hold for any input: no panic, progress on
// every call, memory held by the reader within a bound set by the limits, no message larger
// than its limit, and every vector that decodes writes back to the same property. The seed
// corpus (testdata/fuzz/FuzzReader) holds real simulator output and the hostile cases.

package indi

import (
	"bytes"
	"errors"
	"io"
	"liken.sh/runner/indi/prop"
	"testing"
)

// maxFootprint is what a Reader may hold between messages, whatever it has read.
func maxFootprint(lim Limits) int {
	return readBufferBytes + 2*max(lim.MaxMessageBytes, 64<<10) + 64*lim.MaxAttrs*40 +
		256*64 + (maxInterned+len(words))*2*maxInternedLen
}

func messageBytes(m *Message) int {
	n := len(m.Tag) + len(m.Text)
	for _, a := range m.Attrs {
		n += len(a.Name) + len(a.Value)
	}
	for _, c := range m.Children {
		n += len(c.Tag) + len(c.Text)
		for _, a := range c.Attrs {
			n += len(a.Name) + len(a.Value)
		}
	}
	return n
}

// wireForm clears what a vector of this verb does not carry, for comparing round trips.
func wireForm(verb Verb, p prop.Property) prop.Property {
	p = p.Clone()
	if verb != Def {
		p.Label, p.Group, p.Perm, p.Rule = "", "", "", ""
	}
	if verb == New {
		p.State, p.Timeout, p.Timestamp, p.Message = "", 0, "", ""
	}
	for i := range p.Elements {
		e := &p.Elements[i]
		if verb != Def {
			e.Label = ""
		}
		if verb != Def || p.Type != prop.Number {
			e.Format, e.Min, e.Max, e.Step = "", 0, 0, 0
		}
	}
	return p
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(`<setNumberVector device="d" name="n" state="Busy"><oneNumber name="x">1:30</oneNumber></setNumberVector>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{MaxMessageBytes: 4096, MaxAttrBytes: 256, MaxTextBytes: 512, MaxNameBytes: 32,
			MaxAttrs: 8, MaxChildren: 16}
		r := NewReader(bytes.NewReader(data), lim)
		s := newStore()
		for range len(data) + 1 { // every message consumes at least one byte
			m, err := r.Next()
			if fp := r.footprint(); fp > maxFootprint(lim) {
				t.Fatalf("reader holds %d bytes, more than %d", fp, maxFootprint(lim))
			}
			var refused *RefusedError
			switch {
			case err == nil:
			case errors.As(err, &refused):
				continue
			default:
				var pe *ProtocolError
				if err != io.EOF && !errors.As(err, &pe) {
					t.Fatalf("unexpected error type %T: %v", err, err)
				}
				return
			}
			if n := messageBytes(m); n > lim.MaxMessageBytes {
				t.Fatalf("a message of %d bytes passed a limit of %d", n, lim.MaxMessageBytes)
			}
			s.apply(m)
			verb, p, err := DecodeVector(m)
			if err != nil {
				continue
			}
			out := AppendVector(nil, verb, p)
			back, err := NewReader(bytes.NewReader(out), Limits{}).Next()
			if err != nil {
				t.Fatalf("reading back %q: %v", out, err)
			}
			verb2, p2, err := DecodeVector(back)
			if err != nil || verb2 != verb {
				t.Fatalf("decoding back %q: %v", out, err)
			}
			if want := wireForm(verb, p); !sameProperty(p2, want) {
				t.Fatalf("round trip changed the property\nwant %+v\ngot  %+v\nXML %s", want, p2, out)
			}
		}
		t.Fatal("Next stopped consuming input")
	})
}
