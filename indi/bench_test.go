// The benchmark measures how many property updates per second the reader turns into Properties,
// next to encoding/xml decoding the same stream into plain structs, so the price of our own
// tokenizer (or its gain) stays visible. The stream is what a busy telescope server sends:
// coordinates, axes and temperatures, formatted exactly as indiserver 1.9.9 writes them.

package indi

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"liken.sh/runner/indi/prop"
	"strconv"
	"strings"
	"testing"
)

const benchUpdates = 10000

func updateStream() []byte {
	var b bytes.Buffer
	for i := range benchUpdates {
		ts := fmt.Sprintf("2026-11-29T20:%02d:%02d", i/60%60, i%60)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "<setNumberVector device=\"Telescope Simulator\" name=\"EQUATORIAL_EOD_COORD\" state=\"Busy\" timeout=\"60\" timestamp=\"%s\">\n"+
				"    <oneNumber name=\"RA\">\n%.17g\n    </oneNumber>\n    <oneNumber name=\"DEC\">\n%.17g\n    </oneNumber>\n</setNumberVector>\n",
				ts, 19.2266+float64(i)*1e-4, 89.5-float64(i)*1e-5)
		case 1:
			fmt.Fprintf(&b, "<setNumberVector device=\"Telescope Simulator\" name=\"MOUNT_AXES\" state=\"Idle\" timeout=\"60\" timestamp=\"%s\">\n"+
				"    <oneNumber name=\"PRIMARY\">\n%.17g\n    </oneNumber>\n    <oneNumber name=\"SECONDARY\">\n%.17g\n    </oneNumber>\n</setNumberVector>\n",
				ts, 90-float64(i)*1e-3, 90.0)
		default:
			fmt.Fprintf(&b, "<setNumberVector device=\"CCD Simulator\" name=\"CCD_TEMPERATURE\" state=\"Busy\" timeout=\"60\" timestamp=\"%s\">\n"+
				"    <oneNumber name=\"CCD_TEMPERATURE_VALUE\">\n%g\n    </oneNumber>\n</setNumberVector>\n",
				ts, -float64(i%40)/2)
		}
	}
	return b.Bytes()
}

// xmlVector is the plain struct encoding/xml decodes a vector into.
type xmlVector struct {
	XMLName   xml.Name
	Device    string `xml:"device,attr"`
	Name      string `xml:"name,attr"`
	State     string `xml:"state,attr"`
	Timeout   string `xml:"timeout,attr"`
	Timestamp string `xml:"timestamp,attr"`
	Elements  []struct {
		XMLName xml.Name
		Name    string `xml:"name,attr"`
		Value   string `xml:",chardata"`
	} `xml:",any"`
}

func BenchmarkUpdates(b *testing.B) {
	stream := updateStream()
	b.Run("indi", func(b *testing.B) { measure(b, stream, readAndDecode) })
	b.Run("indi+store", func(b *testing.B) { measure(b, stream, readIntoAStore) })
	b.Run("encoding_xml", func(b *testing.B) { measure(b, stream, decodeWithEncodingXML) })
}

// measure runs one way of reading the stream and reports its bytes, allocations and updates
// per second, the figure the three ways are compared by.
func measure(b *testing.B, stream []byte, read func(b *testing.B, stream []byte)) {
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	read(b, stream)
	b.ReportMetric(float64(b.N)*benchUpdates/b.Elapsed().Seconds(), "updates/s")
}

// readMessages reads the stream to its end with our Reader, handing each message to each, and
// says how many it read.
func readMessages(b *testing.B, stream []byte, each func(m *Message) error) int {
	r := NewReader(bytes.NewReader(stream), Limits{})
	n := 0
	for {
		m, err := r.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := each(m); err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// readAndDecode is our reader and codec: each message decoded into a Property.
func readAndDecode(b *testing.B, stream []byte) {
	for b.Loop() {
		n := readMessages(b, stream, func(m *Message) error {
			if _, p, err := DecodeVector(m); err != nil || len(p.Elements) == 0 {
				return fmt.Errorf("%v (%d elements)", err, len(p.Elements))
			}
			return nil
		})
		if n != benchUpdates {
			b.Fatalf("%d updates", n)
		}
	}
}

// readIntoAStore is what a client does: each update applied to the properties the two
// devices defined.
func readIntoAStore(b *testing.B, stream []byte) {
	s := newStore()
	for _, dev := range []string{"Telescope Simulator", "CCD Simulator"} {
		for _, p := range []prop.Property{
			{Name: "EQUATORIAL_EOD_COORD", Elements: []prop.Element{{Name: "RA"}, {Name: "DEC"}}},
			{Name: "MOUNT_AXES", Elements: []prop.Element{{Name: "PRIMARY"}, {Name: "SECONDARY"}}},
			{Name: "CCD_TEMPERATURE", Elements: []prop.Element{{Name: "CCD_TEMPERATURE_VALUE"}}},
		} {
			p.Device, p.Type, p.Perm, p.State = dev, prop.Number, prop.ReadWrite, prop.Idle
			s.define(p)
		}
	}
	for b.Loop() {
		readMessages(b, stream, s.apply)
	}
}

// decodeWithEncodingXML is the yardstick: encoding/xml decoding each vector into plain
// structs, and the same work on the numbers.
func decodeWithEncodingXML(b *testing.B, stream []byte) {
	for b.Loop() {
		d := xml.NewDecoder(bytes.NewReader(stream))
		n := 0
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			se, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			var v xmlVector
			if err := d.DecodeElement(&v, &se); err != nil {
				b.Fatal(err)
			}
			for _, e := range v.Elements { // the same work: numbers parsed
				if _, err := strconv.ParseFloat(strings.TrimSpace(e.Value), 64); err != nil {
					b.Fatal(err)
				}
			}
			n++
		}
		if n != benchUpdates {
			b.Fatalf("%d updates", n)
		}
	}
}
