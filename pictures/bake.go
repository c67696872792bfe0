// The program a baker pod runs: `bake <file> <#rrggbb>`. The pod mounts an
// NFS directory or a claim read-only, and this reads the one file, makes its
// thumbnail and prints one JSON line that the operator reads back from the
// pod's log. Keeping the decoding in the pod means a share that hangs or a
// file that is hostile costs a pod with its own memory limit, not the worker.
//
// The contract with the operator: success is
// {"thumbnail","modTime","size"} and exit 0; failure is {"reason","error"}
// and exit 1, or 2 for bad arguments. The modTime and size let the operator
// see that a file has not changed since the last read.

package pictures

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/color"
	"io"
	"io/fs"
	"liken.sh/runner/pictures/avatar"
	"os"
	"strings"
	"time"
)

// BakeResult is what a baker pod reports for a picture it read.
type BakeResult struct {
	// Thumbnail is the data URI of the thumbnail.
	Thumbnail string
	// ModTime is the file's modification time, in UTC.
	ModTime time.Time
	// Size is the file's size in bytes.
	Size int64
}

// bakeLine is the JSON line, both ways. A success sets the first three
// fields and a failure the last two.
type bakeLine struct {
	Thumbnail string `json:"thumbnail,omitempty"`
	ModTime   string `json:"modTime,omitempty"`
	Size      *int64 `json:"size,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Exit codes of the baker.
const (
	bakeOK      = 0
	bakeFailed  = 1
	bakeBadArgs = 2
)

// BakeMain is the `bake` subcommand: args are what follows the subcommand,
// <file> <#rrggbb>. It returns the exit code.
func BakeMain(args []string, stdout io.Writer) int {
	if len(args) != 2 {
		writeLine(stdout, bakeLine{Reason: avatar.ReasonBakeFailed, Error: "the baker takes two arguments, <file> <#rrggbb>, and was given " + strings.Join(quoteAll(args), " ")})
		return bakeBadArgs
	}
	return Bake(args[0], args[1], stdout)
}

// Bake reads the file at path, makes its thumbnail over the colour (#rrggbb)
// and prints the one JSON line of the result to stdout. It returns the exit
// code.
func Bake(path, colour string, stdout io.Writer) int {
	c, err := avatar.ParseHex(colour)
	if err != nil {
		writeLine(stdout, bakeLine{Reason: avatar.ReasonBakeFailed, Error: "the baker was given a bad colour: " + err.Error()})
		return bakeBadArgs
	}
	if path == "" {
		writeLine(stdout, bakeLine{Reason: avatar.ReasonBakeFailed, Error: "the baker was given no file"})
		return bakeBadArgs
	}
	res, err := bake(path, c)
	if err != nil {
		writeLine(stdout, bakeLine{Reason: avatar.ReasonOf(err, avatar.ReasonBakeFailed), Error: err.Error()})
		return bakeFailed
	}
	size := res.Size
	writeLine(stdout, bakeLine{Thumbnail: res.Thumbnail, ModTime: res.ModTime.Format(time.RFC3339Nano), Size: &size})
	return bakeOK
}

func bake(path string, colour color.RGBA) (BakeResult, error) {
	f, err := os.Open(path)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "the file %s does not exist", path)
		case errors.Is(err, fs.ErrPermission):
			return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "the file %s cannot be read: permission denied", path)
		}
		return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "the file %s cannot be opened: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "the file %s cannot be read: %w", path, err)
	}
	if info.IsDir() {
		return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "%s is a directory, not a file", path)
	}
	if !info.Mode().IsRegular() {
		return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "%s is not a regular file", path)
	}
	// Refuse a big file from its size alone, and read at most one byte more
	// than the limit in case it grows while it is read.
	if info.Size() > MaxBytes {
		return BakeResult{}, fileTooBig(path, info.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "the file %s cannot be read: %w", path, err)
	}
	if len(data) > MaxBytes {
		return BakeResult{}, fileTooBig(path, int64(len(data)))
	}
	thumb, err := Thumbnail(data, colour)
	if err != nil {
		return BakeResult{}, err
	}
	return BakeResult{Thumbnail: avatar.DataURI(thumb), ModTime: info.ModTime().UTC(), Size: info.Size()}, nil
}

func fileTooBig(path string, n int64) *avatar.Error {
	return avatar.Errorf(avatar.ReasonBakeFailed, "the file %s is %d bytes, over the limit of 10 MiB (%d bytes); make it smaller", path, n, MaxBytes)
}

func writeLine(w io.Writer, line bakeLine) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	// A write that fails has nowhere to be reported; the operator then finds
	// no result in the log and says so.
	_ = enc.Encode(line)
}

func quoteAll(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = avatar.Quote(a)
	}
	if len(q) == 0 {
		return []string{"none"}
	}
	return q
}

// ParseBakeOutput reads a baker pod's log. The result is the last line that
// is a baker result; anything else in the log (a Go panic on stderr, say) is
// ignored. A failure the pod reported comes back as an *Error with its reason;
// a log with no result, or a result that makes no sense, is an *Error with
// ReasonBakeFailed.
func ParseBakeOutput(log []byte) (BakeResult, error) {
	lines := bytes.Split(log, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		l := bytes.TrimSpace(lines[i])
		if len(l) == 0 || l[0] != '{' {
			continue
		}
		var line bakeLine
		if json.Unmarshal(l, &line) != nil || (line.Thumbnail == "" && line.Reason == "" && line.Error == "") {
			continue
		}
		return line.result()
	}
	if len(bytes.TrimSpace(log)) == 0 {
		return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "the baker pod wrote nothing to its log")
	}
	return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "the baker pod's log holds no result: %s", avatar.Quote(lastLine(log)))
}

func (l bakeLine) result() (BakeResult, error) {
	if l.Reason != "" || l.Error != "" {
		reason := l.Reason
		switch reason {
		case avatar.ReasonDecodeFailed, avatar.ReasonBakeFailed:
		default:
			reason = avatar.ReasonBakeFailed
		}
		msg := l.Error
		if msg == "" {
			msg = "the baker pod failed and said nothing about why"
		}
		return BakeResult{}, &avatar.Error{Reason: reason, Message: msg}
	}
	garbled := func(why string) (BakeResult, error) {
		return BakeResult{}, avatar.Errorf(avatar.ReasonBakeFailed, "the baker pod's result is garbled: %s", why)
	}
	b64, ok := strings.CutPrefix(l.Thumbnail, avatar.DataURIPrefix)
	if !ok {
		return garbled("the thumbnail is not a JPEG data URI")
	}
	if jpg, err := base64.StdEncoding.DecodeString(b64); err != nil || !bytes.HasPrefix(jpg, []byte{0xFF, 0xD8}) {
		return garbled("the thumbnail is not a JPEG")
	}
	mod, err := time.Parse(time.RFC3339Nano, l.ModTime)
	if err != nil {
		return garbled("the modTime is not an RFC 3339 time")
	}
	if l.Size == nil || *l.Size < 0 {
		return garbled("the size is missing")
	}
	return BakeResult{Thumbnail: l.Thumbnail, ModTime: mod.UTC(), Size: *l.Size}, nil
}

func lastLine(log []byte) string {
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
