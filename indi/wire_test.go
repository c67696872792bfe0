// These tests pin the reader down on what real servers send (a recorded stream of the Debian
// simulators) and on what it must refuse: each hostile or broken input either ends the stream
// with a ProtocolError or skips one element with a RefusedError, and memory stays within the
// limits however long the input runs.

package indi

import (
	"errors"
	"io"
	"liken.sh/runner/indi/prop"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
)

func readAll(t *testing.T, in string, lim Limits) (msgs []*Message, refused []error, fatal error) {
	t.Helper()
	r := NewReader(strings.NewReader(in), lim)
	for {
		m, err := r.Next()
		var re *RefusedError
		switch {
		case err == nil:
			msgs = append(msgs, m)
		case errors.As(err, &re):
			refused = append(refused, err)
		case err == io.EOF:
			return msgs, refused, nil
		default:
			if again, err2 := r.Next(); again != nil || err2 != err {
				t.Fatalf("a fatal error must stick: got %v, %v after %v", again, err2, err)
			}
			return msgs, refused, err
		}
	}
}

func TestTheReaderParsesARecordedSimulatorStream(t *testing.T) {
	data, err := os.ReadFile("testdata/simulators.xml")
	if err != nil {
		t.Fatal(err)
	}
	msgs, refused, fatal := readAll(t, string(data), Limits{})
	if fatal != nil || len(refused) > 0 {
		t.Fatalf("fatal %v, refused %v", fatal, refused)
	}
	want := len(regexp.MustCompile(`(?m)^<[a-zA-Z]`).FindAll(data, -1))
	if len(msgs) != want {
		t.Fatalf("read %d messages, the file has %d", len(msgs), want)
	}
	s := newStore()
	for _, m := range msgs {
		if err := s.apply(m); err != nil {
			t.Errorf("%s: %v", m.Tag, err)
		}
	}
	p, ok := s.property("Dome Simulator", "DOME_SHUTTER")
	if !ok || p.Type != prop.Switch || p.Rule != prop.AtMostOne || p.Perm != prop.ReadWrite || len(p.Elements) != 2 {
		t.Fatalf("DOME_SHUTTER = %+v", p)
	}
	if p.Elements[0].Name != "SHUTTER_OPEN" || p.Elements[0].Label != "Open" || p.Elements[1].Value != "On" {
		t.Fatalf("DOME_SHUTTER elements = %+v", p.Elements)
	}
	// The recording ends with the camera cooling to -2 °C, one set vector a second.
	temp, ok := s.property("CCD Simulator", "CCD_TEMPERATURE")
	if v, _ := temp.Number("CCD_TEMPERATURE_VALUE"); !ok || v != -2 || temp.State != prop.Busy {
		t.Fatalf("CCD_TEMPERATURE = %s", temp.Summary())
	}
	if got := len(s.deviceNames()); got != 7 {
		t.Fatalf("devices %v", s.deviceNames())
	}
}

func TestWhitespaceEntitiesAndCommentsAreDecoded(t *testing.T) {
	in := `<?xml version="1.0"?>
<!-- a comment -->
<defTextVector device="D &amp; Co" name="T" label='say "hi"' group="G" state="Idle" perm="rw" timeout="0">
  <!-- inside -->
  <defText name="A" label="a">
   x &lt; y &#38; &#x41; caf&#233;
  </defText>
  <defText name="B" label="tab&#9;here"/>
</defTextVector>`
	msgs, refused, fatal := readAll(t, in, Limits{})
	if fatal != nil || len(refused) > 0 || len(msgs) != 1 {
		t.Fatalf("msgs %d refused %v fatal %v", len(msgs), refused, fatal)
	}
	_, p, err := DecodeVector(msgs[0])
	if err != nil {
		t.Fatal(err)
	}
	if p.Device != "D & Co" || p.Label != `say "hi"` {
		t.Fatalf("attributes: %q %q", p.Device, p.Label)
	}
	if p.Elements[0].Value != "x < y & A café" {
		t.Fatalf("text %q", p.Elements[0].Value)
	}
	if p.Elements[1].Label != "tab\there" || p.Elements[1].Value != "" {
		t.Fatalf("second element %+v", p.Elements[1])
	}
}

// endless yields a prefix and then the same byte forever.
type endless struct {
	prefix string
	fill   byte
	read   int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.prefix)
	e.prefix = e.prefix[n:]
	for i := n; i < len(p); i++ {
		p[i] = e.fill
	}
	e.read += int64(len(p))
	return len(p), nil
}

func TestAnEndlessAttributeIsRefusedWithBoundedMemory(t *testing.T) {
	for _, tc := range []struct {
		name, prefix string
		fill         byte
	}{
		{"attribute", `<message device="d" message="`, 'a'},
		{"text", `<setTextVector device="d" name="n"><oneText name="t">`, 'a'},
		{"discarded BLOB", `<setBLOBVector device="d" name="n"><oneBLOB name="b" size="1" format=".fits">`, 'A'},
		{"whitespace", ``, ' '},
		{"comment", `<!--`, '-'},
		{"unknown element", `<junk><junk>`, 'z'},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &endless{prefix: tc.prefix, fill: tc.fill}
			lim := Limits{MaxMessageBytes: 256 << 10}
			r := NewReader(src, lim)
			_, err := r.Next()
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a ProtocolError", err)
			}
			if src.read > int64(lim.MaxMessageBytes)+2*readBufferBytes {
				t.Fatalf("read %d bytes before refusing", src.read)
			}
			if fp := r.footprint(); fp > 2*lim.MaxMessageBytes {
				t.Fatalf("reader holds %d bytes", fp)
			}
		})
	}
}

func TestMalformedStreamsAreRefused(t *testing.T) {
	valid := `<message device="d" message="still here"/>`
	lim := Limits{MaxMessageBytes: 4096, MaxAttrBytes: 100, MaxTextBytes: 200, MaxNameBytes: 20,
		MaxAttrs: 4, MaxChildren: 3}
	for _, tc := range []struct {
		name, in string
		fatal    string // substring of the ProtocolError, or "" when only refused
	}{
		{"huge element", `<setTextVector device="d" name="n"><!--` + strings.Repeat("x", 5000) + `--></setTextVector>`, "longer than 4096"},
		{"endless attribute", `<message message="` + strings.Repeat("a", 500) + `"/>`, "attribute value longer"},
		{"long text", `<setTextVector device="d" name="n"><oneText name="t">` + strings.Repeat("a", 300) + `</oneText></setTextVector>`, "text longer"},
		{"invalid UTF-8 in an attribute", "<message message=\"\xff\"/>", "invalid UTF-8"},
		{"invalid UTF-8 in text", "<setTextVector device=\"d\" name=\"n\"><oneText name=\"t\">\xc3\x28</oneText></setTextVector>", "invalid UTF-8"},
		{"an encoded surrogate", "<message message=\"\xed\xa0\x80\"/>", "invalid UTF-8"},
		{"a control character", "<message message=\"a\x01\"/>", "control character"},
		{"an unknown entity", `<message message="&nbsp;"/>`, "unknown entity"},
		{"a NUL reference", `<message message="&#0;"/>`, "not an XML character"},
		{"an endless entity", `<message message="&aaaaaaaaaaaaaaaaaaaa;"/>`, "entity reference too long"},
		{"a DOCTYPE", `<!DOCTYPE x>`, "only comments"},
		{"CDATA", `<setTextVector device="d" name="n"><oneText name="t"><![CDATA[x]]></oneText></setTextVector>`, "only comments"},
		{"a mismatched close", `<message device="d"></messagex>`, "closes"},
		{"a close without open", `</message>`, "close tag without"},
		{"text outside elements", `hello`, "outside any element"},
		{"the end inside an element", `<setTextVector device="d" name="n"><oneText name="t">abc`, "ended inside"},
		{"an unquoted attribute", `<message device=d/>`, "must be quoted"},
		{"attributes run together", `<message device="d"name="n"/>`, "separated by whitespace"},
		{"a duplicate attribute", `<message device="d" device="e"/>`, "duplicate attribute"},
		{"too many attributes", `<message a="1" b="2" c="3" d="4" e="5"/>`, "more than 4 attributes"},
		{"a long name", `<message ` + strings.Repeat("x", 30) + `="1"/>`, "name longer"},
		{"a non-ASCII name", "<m\xc3\xa9ssage/>", "unexpected"},
		{"'<' in an attribute", `<message message="a<b"/>`, "'<' in attribute"},
		{"too many elements", `<setTextVector device="d" name="n">` + strings.Repeat(`<oneText name="t">x</oneText>`, 4) + `</setTextVector>`, "more than 3 elements"},
		{"elements inside an element", `<setNumberVector device="d" name="n"><oneNumber name="x"><b/></oneNumber></setNumberVector>`, "may hold only text"},
		{"unknown elements nested deeply", `<x>` + strings.Repeat("<y>", 40), "nested deeper"},
		{"an unknown element", `<blob size="3">abc<inner a="b"/></blob>`, ""},
		{"a child of the wrong kind", `<defSwitchVector device="d" name="n"><defNumber name="x">1</defNumber></defSwitchVector>`, ""},
		{"a child where none belongs", `<delProperty device="d"><oneText name="x">1</oneText></delProperty>`, ""},
		{"text around elements", `<setTextVector device="d" name="n">a<oneText name="t">x</oneText>b</setTextVector>`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fatal != "" {
				_, refused, fatal := readAll(t, tc.in, lim)
				var pe *ProtocolError
				if !errors.As(fatal, &pe) || !strings.Contains(fatal.Error(), tc.fatal) {
					t.Fatalf("got %v (refused %v), want a ProtocolError with %q", fatal, refused, tc.fatal)
				}
				return
			}
			msgs, refused, fatal := readAll(t, tc.in+valid, lim)
			if fatal != nil || len(refused) != 1 {
				t.Fatalf("got fatal %v, refused %v; want one refusal", fatal, refused)
			}
			if len(msgs) != 1 || msgs[0].Attr("message") != "still here" {
				t.Fatalf("the stream must go on after a refusal; got %d messages", len(msgs))
			}
		})
	}
}

func TestRefusedVectorsNeverReachTheStore(t *testing.T) {
	for _, in := range []string{
		`<defSwitchVector device="d" name="n" state="Maybe" perm="rw" rule="OneOfMany"><defSwitch name="a">On</defSwitch></defSwitchVector>`,
		`<defSwitchVector device="d" name="n" state="Ok" perm="rwx" rule="OneOfMany"><defSwitch name="a">On</defSwitch></defSwitchVector>`,
		`<defSwitchVector device="d" name="n" state="Ok" perm="rw" rule="Some"><defSwitch name="a">On</defSwitch></defSwitchVector>`,
		`<defSwitchVector device="d" name="n" state="Ok" perm="rw" rule="OneOfMany"><defSwitch name="a">Yes</defSwitch></defSwitchVector>`,
		`<defSwitchVector device="d" name="n" state="Ok" perm="rw" rule="OneOfMany"><defSwitch name="a">On</defSwitch><defSwitch name="a">Off</defSwitch></defSwitchVector>`,
		`<defNumberVector device="d" name="n" state="Ok" perm="rw"><defNumber name="x" format="%g" min="0" max="1" step="0">twelve</defNumber></defNumberVector>`,
		`<defNumberVector device="d" name="n" state="Ok" perm="rw" timeout="soon"><defNumber name="x">1</defNumber></defNumberVector>`,
		`<defLightVector device="d" name="n" state="Ok"><defLight name="x">Bright</defLight></defLightVector>`,
		`<defTextVector name="n" state="Ok" perm="rw"><defText name="x">1</defText></defTextVector>`,
		`<defTextVector device="d" name="n" state="Ok" perm="rw"><defText>1</defText></defTextVector>`,
	} {
		msgs, refused, fatal := readAll(t, in, Limits{})
		if fatal != nil || len(refused) != 0 || len(msgs) != 1 {
			t.Fatalf("%s: msgs %d refused %v fatal %v", in, len(msgs), refused, fatal)
		}
		s := newStore()
		if err := s.apply(msgs[0]); err == nil {
			t.Errorf("%s: applied", in)
		}
		if len(s.deviceNames()) != 0 {
			t.Errorf("%s: reached the store", in)
		}
	}
}

func TestWrittenVectorsReadBackTheSame(t *testing.T) {
	tricky := "quote \" apos ' lt < gt > amp & tab \t nl \n café ✓"
	props := []struct {
		verb Verb
		p    prop.Property
	}{
		{Def, prop.Property{Device: "Dome " + tricky, Name: "DOME_SHUTTER", Label: tricky, Group: "Main",
			Type: prop.Switch, Perm: prop.ReadWrite, Rule: prop.AtMostOne, State: prop.Busy, Timeout: 60,
			Timestamp: "2026-11-29T20:24:37", Message: tricky,
			Elements: []prop.Element{{Name: "SHUTTER_OPEN", Label: "Open", Value: "On"}, {Name: "SHUTTER_CLOSE", Label: "Close", Value: "Off"}}}},
		{Def, prop.Property{Device: "d", Name: "N", Label: "l", Group: "g", Type: prop.Number, Perm: prop.ReadOnly,
			State: prop.Ok, Timeout: 0.5, Elements: []prop.Element{{Name: "RA", Label: "RA", Value: "12.25", Number: 12.25,
				Format: "%010.6m", Min: 0, Max: 24, Step: 0.001}}}},
		{Def, prop.Property{Device: "d", Name: "T", Type: prop.Text, Perm: prop.WriteOnly, State: prop.Alert,
			Elements: []prop.Element{{Name: "X", Value: tricky}}}},
		{Def, prop.Property{Device: "d", Name: "L", Type: prop.Light, Perm: prop.ReadOnly, State: prop.Idle,
			Elements: []prop.Element{{Name: "A", Value: "Alert"}, {Name: "B", Value: "Ok"}}}},
		{Def, prop.Property{Device: "d", Name: "B", Type: prop.BLOB, Perm: prop.ReadOnly, State: prop.Idle,
			Elements: []prop.Element{{Name: "CCD1"}}}},
		{Set, prop.Property{Device: "d", Name: "N", Type: prop.Number, State: prop.Busy, Elements: []prop.Element{{Name: "RA", Value: "-0.000001", Number: -0.000001}}}},
		{New, prop.Property{Device: "d", Name: "S", Type: prop.Switch, Elements: []prop.Element{{Name: "ON", Value: "On"}}}},
	}
	for _, tc := range props {
		b := AppendVector(nil, tc.verb, tc.p)
		msgs, refused, fatal := readAll(t, string(b), Limits{})
		if fatal != nil || len(refused) > 0 || len(msgs) != 1 {
			t.Fatalf("%s: %v %v", b, refused, fatal)
		}
		verb, got, err := DecodeVector(msgs[0])
		if err != nil || verb != tc.verb {
			t.Fatalf("%s: %v %v", b, verb, err)
		}
		if tc.verb == New { // new carries only device, name and values
			tc.p.Timeout = 0
		}
		if !sameProperty(got, tc.p) {
			t.Fatalf("wrote %+v\nread  %+v\nXML %s", tc.p, got, b)
		}
	}
}

// sameProperty compares properties, numbers by value (NaN equal to NaN).
func sameProperty(a, b prop.Property) bool {
	ae, be := a.Elements, b.Elements
	a.Elements, b.Elements = nil, nil
	if !sameNumber(a.Timeout, b.Timeout) {
		return false
	}
	a.Timeout, b.Timeout = 0, 0
	if a.Device != b.Device || a.Name != b.Name || a.Label != b.Label || a.Group != b.Group ||
		a.Type != b.Type || a.Perm != b.Perm || a.Rule != b.Rule || a.State != b.State ||
		a.Timestamp != b.Timestamp || a.Message != b.Message || len(ae) != len(be) {
		return false
	}
	for i := range ae {
		x, y := ae[i], be[i]
		if x.Name != y.Name || x.Label != y.Label || x.Format != y.Format ||
			!sameNumber(x.Number, y.Number) || !sameNumber(x.Min, y.Min) ||
			!sameNumber(x.Max, y.Max) || !sameNumber(x.Step, y.Step) {
			return false
		}
		if a.Type != prop.Number && x.Value != y.Value {
			return false
		}
	}
	return true
}

func sameNumber(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
