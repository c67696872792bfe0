// The dev-mode INDI servers' state folder (LocalINDI.Dir): one JSON record per server,
// written whole and renamed, and lock files that keep workers on one folder from starting or
// stopping the same server at once.
package observatory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ReadLocalINDIRecords lists the servers recorded in dir.
func ReadLocalINDIRecords(dir string) ([]LocalINDIRecord, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var recs []LocalINDIRecord
	var errs []error
	for _, f := range files {
		b, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var r LocalINDIRecord
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("the local indiserver record %s: %w", f, err))
			continue
		}
		recs = append(recs, r)
	}
	return recs, errors.Join(errs...)
}

// readRecord reads the record of key's server in Dir.
func (l *LocalINDI) readRecord(key string) (LocalINDIRecord, error) {
	var r LocalINDIRecord
	b, err := os.ReadFile(l.recordPath(key))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, err
	}
	if r.Namespace+"/"+r.Name != key {
		return r, fmt.Errorf("the record names %s/%s", r.Namespace, r.Name)
	}
	return r, nil
}

func (l *LocalINDI) record(r LocalINDIRecord) error {
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	// Written whole and renamed, so a worker killed mid-write leaves the old record or none.
	path := l.recordPath(r.Namespace + "/" + r.Name)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (l *LocalINDI) forget(key string) {
	if l.Dir != "" {
		os.Remove(l.recordPath(key))
	}
}

// recordPath names a server's record: namespaces and pod names never hold '_'.
func (l *LocalINDI) recordPath(key string) string {
	return filepath.Join(l.Dir, strings.Replace(key, "/", "_", 1)+".json")
}

// lockDir takes the lock file name in Dir ("lock" for the whole folder, one per server for
// its start and stop), which keeps two workers on one Dir from starting the same server twice.
func (l *LocalINDI) lockDir(name string) (unlock func(), err error) {
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("the local INDI state folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(l.Dir, name), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the local INDI state folder: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the local INDI state folder: %w", err)
	}
	return func() { f.Close() }, nil
}
