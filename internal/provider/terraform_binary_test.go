package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fatalRecorder is a testing.TB whose Fatal records the message and stops
// the function under test, as the real one stops a test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatal(args ...any) { f.msg = fmt.Sprint(args...); panic(f) }

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// lookup runs terraformBinary and returns the path, or the fatal message.
func (f *fatalRecorder) lookup() (path string) {
	defer func() {
		if r := recover(); r != nil && r != any(f) {
			panic(r)
		}
	}()
	return terraformBinary(f)
}

// `TF_ACC=1 go test ./...` needs no TF_ACC_TERRAFORM_PATH: the terraform on
// PATH serves, as terraform-plugin-testing finds it; with none anywhere,
// the tests fail and say why, and a TF_ACC_TERRAFORM_PATH that is not an
// executable is refused.
func TestTerraformBinaryIsFoundOnPath(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "terraform")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", "")
	t.Setenv("PATH", dir)
	if f := (&fatalRecorder{TB: t}); f.lookup() != fake || f.msg != "" {
		t.Errorf("with terraform on PATH only: got %q, failure %q", f.lookup(), f.msg)
	}

	t.Setenv("PATH", t.TempDir())
	if f := (&fatalRecorder{TB: t}); f.lookup() != "" || !strings.Contains(f.msg, "no terraform on PATH") {
		t.Errorf("with no terraform anywhere the tests should fail and say so, got %q", f.msg)
	}

	t.Setenv("TF_ACC_TERRAFORM_PATH", filepath.Join(dir, "missing"))
	if f := (&fatalRecorder{TB: t}); f.lookup() != "" || !strings.Contains(f.msg, "is not an executable") {
		t.Errorf("a TF_ACC_TERRAFORM_PATH that is no executable should fail, got %q", f.msg)
	}
}
