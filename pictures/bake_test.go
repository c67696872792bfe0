// The baker's one JSON line is a contract between two processes, the pod
// and the worker that reads its log, so these tests run the baker on real
// files and read its output back with ParseBakeOutput, the worker's side.

package pictures

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/color"
	"liken.sh/runner/pictures/avatar"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// bakeOutput runs the baker and checks it printed exactly one JSON line.
func bakeOutput(t *testing.T, run func(out *bytes.Buffer) int) (int, []byte, map[string]any) {
	t.Helper()
	var out bytes.Buffer
	code := run(&out)
	b := out.Bytes()
	if bytes.Count(b, []byte("\n")) != 1 || !bytes.HasSuffix(b, []byte("\n")) {
		t.Fatalf("the baker printed %q, want one line", b)
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatalf("the baker's line is not JSON: %v", err)
	}
	return code, b, fields
}

func keys(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}

func TestABakedFileReportsItsThumbnailModificationTimeAndSize(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ada.png")
	data := pngOf(t, solid(64, 48, color.NRGBA{0xFF, 0xFF, 0xFF, 0}))
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2024, 3, 1, 12, 30, 45, 123456789, time.FixedZone("CET", 3600))
	if err := os.Chtimes(file, mod, mod); err != nil {
		t.Fatal(err)
	}

	code, line, fields := bakeOutput(t, func(out *bytes.Buffer) int { return Bake(file, "#2e7d32", out) })
	if code != 0 {
		t.Fatalf("the baker exited %d: %s", code, line)
	}
	if got := keys(fields); !reflect.DeepEqual(got, []string{"modTime", "size", "thumbnail"}) {
		t.Errorf("the success line has the fields %v", got)
	}
	if got, want := fields["modTime"], "2024-03-01T11:30:45.123456789Z"; got != want {
		t.Errorf("modTime is %v, want %s (RFC 3339 with nanoseconds, UTC)", got, want)
	}
	if got := fields["size"]; got != float64(len(data)) {
		t.Errorf("size is %v, want %d", got, len(data))
	}

	res, err := ParseBakeOutput(line)
	if err != nil {
		t.Fatalf("the worker cannot read the baker's line: %v", err)
	}
	if !res.ModTime.Equal(mod) || res.Size != int64(len(data)) {
		t.Errorf("read back %v and %d bytes, want %v and %d", res.ModTime, res.Size, mod, len(data))
	}
	thumb, _ := strings.CutPrefix(res.Thumbnail, "data:image/jpeg;base64,")
	jpg := mustBase64(t, thumb)
	if got := decodeJPEG(t, jpg).At(Size/2, Size/2); !near(got, color.RGBA{0x2e, 0x7d, 0x32, 0xFF}, 8) {
		t.Errorf("the transparent picture baked to %v, not the colour it was given", got)
	}
	if avatar.IsInitials(res.Thumbnail) {
		t.Error("a baked photo looks like initials")
	}
}

func TestAFailedBakeIsOneJSONLineWithAReason(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A sparse file: big by its size, yet nothing on disk.
	big := filepath.Join(dir, "big.jpg")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(11 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()

	for _, tc := range []struct {
		name, path, reason, says string
	}{
		{"a missing file", filepath.Join(dir, "gone.jpg"), avatar.ReasonBakeFailed, "gone.jpg does not exist"},
		{"a missing directory", filepath.Join(dir, "no", "such.jpg"), avatar.ReasonBakeFailed, "does not exist"},
		{"a directory", dir, avatar.ReasonBakeFailed, "is a directory, not a file"},
		{"a device", os.DevNull, avatar.ReasonBakeFailed, "is not a regular file"},
		{"a file over 10 MiB", big, avatar.ReasonBakeFailed, "is 11534336 bytes, over the limit of 10 MiB"},
		{"text", write("notes.jpg", []byte("not a picture")), avatar.ReasonDecodeFailed, "not a JPEG, PNG, GIF, or WebP"},
		{"an empty file", write("empty.png", nil), avatar.ReasonDecodeFailed, "the picture is empty"},
		{"a bomb", write("bomb.png", pngHeader(9000, 10)), avatar.ReasonDecodeFailed, "the picture is 9000x10 pixels; each side must be at most 8192"},
		{"a truncated PNG", write("cut.png", pngOf(t, solid(64, 64, color.White))[:40]), avatar.ReasonDecodeFailed, "not a valid PNG"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var line []byte
			var fields map[string]any
			used := allocated(func() {
				code, line, fields = bakeOutput(t, func(out *bytes.Buffer) int { return Bake(tc.path, "#b71c1c", out) })
			})
			if code != 1 {
				t.Errorf("the baker exited %d, want 1", code)
			}
			if got := keys(fields); !reflect.DeepEqual(got, []string{"error", "reason"}) {
				t.Errorf("the failure line has the fields %v", got)
			}
			if fields["reason"] != tc.reason || !strings.Contains(fields["error"].(string), tc.says) {
				t.Errorf("the baker said %s, want %s saying %q", line, tc.reason, tc.says)
			}
			// Whatever the file, refusing it costs little: the big file is
			// refused by its size, not read.
			if used > 1<<20 {
				t.Errorf("refusing it allocated %d bytes", used)
			}
			_, err := ParseBakeOutput(line)
			if reasonOf(t, err) != tc.reason || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("the worker reads %v, want %s saying %q", err, tc.reason, tc.says)
			}
		})
	}
}

func TestBadArgumentsExitWithTwo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ada.png")
	if err := os.WriteFile(file, pngOf(t, solid(4, 4, color.White)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no arguments", nil},
		{"no colour", []string{file}},
		{"an argument too many", []string{file, "#b71c1c", "extra"}},
		{"a colour by name", []string{file, "red"}},
		{"a colour with no hash", []string{file, "b71c1c"}},
		{"no file", []string{"", "#b71c1c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, line, fields := bakeOutput(t, func(out *bytes.Buffer) int { return BakeMain(tc.args, out) })
			if code != 2 {
				t.Errorf("the baker exited %d, want 2", code)
			}
			if fields["reason"] != avatar.ReasonBakeFailed || fields["error"] == "" {
				t.Errorf("the baker said %s, want BakeFailed with a message", line)
			}
		})
	}
}

func TestBakeMainBakesTheFileWithTheColourItIsGiven(t *testing.T) {
	file := filepath.Join(t.TempDir(), "clear.gif")
	clear := color.NRGBA{}
	if err := os.WriteFile(file, gifOf(t, solid(8, 8, clear)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := BakeMain([]string{file, "#5D4037"}, &out); code != 0 {
		t.Fatalf("the baker exited %d: %s", code, out.Bytes())
	}
	res, err := ParseBakeOutput(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	jpg := mustBase64(t, strings.TrimPrefix(res.Thumbnail, "data:image/jpeg;base64,"))
	if got := decodeJPEG(t, jpg).At(0, 0); !near(got, color.RGBA{0x5D, 0x40, 0x37, 0xFF}, 8) {
		t.Errorf("the corner is %v, want near #5d4037", got)
	}
}

func TestTheWorkerReadsABakersLog(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ada.jpg")
	if err := os.WriteFile(file, jpegOf(t, solid(30, 30, color.White)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if Bake(file, "#37474f", &out) != 0 {
		t.Fatalf("the baker failed: %s", out.Bytes())
	}
	good := bytes.TrimSpace(out.Bytes())
	want, err := ParseBakeOutput(good)
	if err != nil {
		t.Fatal(err)
	}
	ok := []struct {
		name string
		log  []byte
	}{
		{"a line with no newline", good},
		{"a line with a newline", append(append([]byte{}, good...), '\n')},
		{"a line with CRLF and blank lines", append(append([]byte("\n\n"), good...), "\r\n\n"...)},
		{"a line after stderr noise", append([]byte("W0301 warning: something\n{not json\n"), good...)},
		{"a line before a goroutine dump", append(append([]byte{}, good...), "\ngoroutine 1 [running]:\nmain.main()\n"...)},
	}
	for _, tc := range ok {
		got, err := ParseBakeOutput(tc.log)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %+v, %v", tc.name, got, err)
		}
	}
}

func TestALogWithNoGoodResultIsABakeFailure(t *testing.T) {
	const thumb = "data:image/jpeg;base64,/9j/4AAQ"
	for _, tc := range []struct {
		name, log, reason, says string
	}{
		{"an empty log", "", avatar.ReasonBakeFailed, "wrote nothing"},
		{"blank lines", "\n \n", avatar.ReasonBakeFailed, "wrote nothing"},
		{"a panic", "panic: boom\n\ngoroutine 1 [running]:\n", avatar.ReasonBakeFailed, "holds no result"},
		{"a line cut short", `{"thumbnail": "data:image/jpeg;base64,/9j/4AA`, avatar.ReasonBakeFailed, "holds no result"},
		{"an empty object", `{}`, avatar.ReasonBakeFailed, "holds no result"},
		{"a JSON array", `["thumbnail"]`, avatar.ReasonBakeFailed, "holds no result"},
		{"a reported decode failure", `{"reason":"DecodeFailed","error":"the picture is empty"}`, avatar.ReasonDecodeFailed, "the picture is empty"},
		{"a reported bake failure", `{"reason":"BakeFailed","error":"the file x does not exist"}`, avatar.ReasonBakeFailed, "the file x does not exist"},
		{"an unknown reason", `{"reason":"Exploded","error":"it exploded"}`, avatar.ReasonBakeFailed, "it exploded"},
		{"a reason with no message", `{"reason":"DecodeFailed"}`, avatar.ReasonDecodeFailed, "said nothing about why"},
		{"a thumbnail that is no data URI", `{"thumbnail":"https://x/y.jpg","modTime":"2024-01-01T00:00:00Z","size":1}`, avatar.ReasonBakeFailed, "garbled"},
		{"a thumbnail that is no JPEG", `{"thumbnail":"data:image/jpeg;base64,aGVsbG8=","modTime":"2024-01-01T00:00:00Z","size":1}`, avatar.ReasonBakeFailed, "not a JPEG"},
		{"a bad modTime", `{"thumbnail":"` + thumb + `","modTime":"yesterday","size":1}`, avatar.ReasonBakeFailed, "modTime"},
		{"no modTime", `{"thumbnail":"` + thumb + `","size":1}`, avatar.ReasonBakeFailed, "modTime"},
		{"no size", `{"thumbnail":"` + thumb + `","modTime":"2024-01-01T00:00:00Z"}`, avatar.ReasonBakeFailed, "size"},
		{"a negative size", `{"thumbnail":"` + thumb + `","modTime":"2024-01-01T00:00:00Z","size":-1}`, avatar.ReasonBakeFailed, "size"},
	} {
		_, err := ParseBakeOutput([]byte(tc.log))
		if reasonOf(t, err) != tc.reason || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: read %v, want %s saying %q", tc.name, err, tc.reason, tc.says)
		}
		var e *avatar.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: the error is not an *Error", tc.name)
		}
	}
}
