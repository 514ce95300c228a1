package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// store persists state to one JSON file. A save writes a temporary file in
// the same directory, fsyncs it, renames it over the old one and fsyncs the
// directory, so a crash leaves either the old or the new state, never half.
type store struct {
	path string
}

// load returns nil when there is no file yet. Anything else that is wrong
// with the file is an error: silently starting empty would make a user's
// objects vanish.
func (s *store) load() (*state, error) {
	if s.path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("emulator: reading state file %s: %w", s.path, err)
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("emulator: state file %s is corrupt (%v); move it away to start with a fresh state", s.path, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("emulator: state file %s has version %d, this emulator reads version %d", s.path, st.Version, stateVersion)
	}
	if st.Organization.ID == "" || len(st.Users) == 0 || len(st.WebhookKeySeed) != 32 {
		return nil, fmt.Errorf("emulator: state file %s is corrupt: it lacks the organization, its users or the webhook key", s.path)
	}
	st.ensureMaps()
	return &st, nil
}

// write replaces the file with b atomically.
func (s *store) write(b []byte) error {
	dir := filepath.Dir(s.path)
	tmp, err := os.CreateTemp(dir, filepath.Base(s.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("emulator: saving state: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // no-op after the rename
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("emulator: saving state: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("emulator: saving state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("emulator: saving state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("emulator: saving state: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("emulator: saving state: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
