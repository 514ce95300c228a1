// Package testclis names the Terraform and OpenTofu CLIs the tests run
// besides the terraform on PATH, tells them apart, and says which features
// each has.
//
// The extra CLIs come from one variable, CUSTODY_TEST_CLIS: paths separated
// by spaces (.ci/run sets it from the shared test CLIs). A feature is
// judged by the kind of CLI and its version, never by the version alone:
// OpenTofu 1.12.6 reports 1.12.6 as its terraform_version, yet has no
// `query`.
package testclis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Env is the variable that lists the extra CLIs, separated by spaces.
const Env = "CUSTODY_TEST_CLIS"

// SkipLogEnv names a file to which tests that a CLI cannot run append why
// they skipped (RecordSkip), for `make test` to print.
const SkipLogEnv = "CUSTODY_TEST_SKIP_LOG"

// Kind is which CLI it is.
type Kind string

// The kinds of CLI.
const (
	Terraform Kind = "Terraform"
	OpenTofu  Kind = "OpenTofu"
)

// Version is a release version, major.minor.patch.
type Version [3]int

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// AtLeast reports whether v is o or newer.
func (v Version) AtLeast(o Version) bool {
	for i := range v {
		if v[i] != o[i] {
			return v[i] > o[i]
		}
	}
	return true
}

// ParseVersion reads "1.12.6" (a leading "v" and a suffix such as
// "-beta1" are allowed).
func ParseVersion(s string) (Version, error) {
	var v Version
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("version %q is not major.minor.patch", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, fmt.Errorf("version %q is not major.minor.patch", s)
		}
		v[i] = n
	}
	return v, nil
}

// CLI is one Terraform or OpenTofu binary.
type CLI struct {
	Path    string
	Kind    Kind
	Version Version
}

func (c CLI) String() string { return fmt.Sprintf("%s %s", c.Kind, c.Version) }

// Paths splits the value of CUSTODY_TEST_CLIS into paths. Each must be an
// absolute path, and none may be listed twice.
func Paths(list string) ([]string, error) {
	paths := strings.Fields(list)
	seen := map[string]bool{}
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("%s: %q is not an absolute path (list the CLIs' paths, separated by spaces)", Env, p)
		}
		if seen[p] {
			return nil, fmt.Errorf("%s: %q is listed twice", Env, p)
		}
		seen[p] = true
	}
	return paths, nil
}

// versionLine is the line of `terraform version` or `tofu version` that
// names the CLI. OpenTofu may print a warning about its CLI configuration
// first, on the same stream.
var versionLine = regexp.MustCompile(`(?m)^(Terraform|OpenTofu) (v\S+)\s*$`)

// ParseVersionOutput reads the kind and version from the output of
// `<cli> version`.
func ParseVersionOutput(out string) (Kind, Version, error) {
	m := versionLine.FindStringSubmatch(out)
	if m == nil {
		return "", Version{}, fmt.Errorf("no \"Terraform vX.Y.Z\" or \"OpenTofu vX.Y.Z\" line in its version output:\n%s", out)
	}
	v, err := ParseVersion(m[2])
	return Kind(m[1]), v, err
}

// Detect runs `path version` and tells which CLI it is.
func Detect(ctx context.Context, path string) (CLI, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return CLI{}, fmt.Errorf("%s version: %v\n%s", path, err, out)
	}
	kind, v, err := ParseVersionOutput(string(out))
	if err != nil {
		return CLI{}, fmt.Errorf("%s: %w", path, err)
	}
	return CLI{Path: path, Kind: kind, Version: v}, nil
}

// Feature is something only some CLIs can do: the first version of each
// kind that has it, or none.
type Feature struct {
	Name      string
	Terraform *Version
	OpenTofu  *Version
}

func from(major, minor int) *Version { return &Version{major, minor, 0} }

// The features that tests may need beyond Terraform 1.11, the oldest CLI
// the provider supports.
var (
	// WriteOnly is write-only attributes (and ephemeral values).
	WriteOnly = Feature{Name: "write-only attributes", Terraform: from(1, 11), OpenTofu: from(1, 11)}
	// Identity is resource identity: import blocks with identity = {...}.
	Identity = Feature{Name: "resource identity", Terraform: from(1, 12), OpenTofu: from(1, 12)}
	// Query is list resources and `terraform query`, which OpenTofu lacks.
	Query = Feature{Name: "list resources and query", Terraform: from(1, 14)}
)

// Needs says which CLIs have f, such as "Terraform >= 1.14, not OpenTofu".
func (f Feature) Needs() string {
	var parts []string
	if f.Terraform != nil {
		parts = append(parts, fmt.Sprintf("Terraform >= %d.%d", f.Terraform[0], f.Terraform[1]))
	}
	if f.OpenTofu != nil {
		parts = append(parts, fmt.Sprintf("OpenTofu >= %d.%d", f.OpenTofu[0], f.OpenTofu[1]))
		return strings.Join(parts, " or ")
	}
	return strings.Join(append(parts, "not OpenTofu"), ", ")
}

// Supports reports whether c has f, and if not, why.
func (c CLI) Supports(f Feature) (bool, string) {
	first := f.Terraform
	if c.Kind == OpenTofu {
		first = f.OpenTofu
	}
	if first != nil && c.Version.AtLeast(*first) {
		return true, ""
	}
	return false, fmt.Sprintf("needs %s (%s); this is %s", f.Name, f.Needs(), c)
}

// OpenTofuProviderHost is the registry host OpenTofu resolves
// custody-labs/custody to.
const OpenTofuProviderHost = "registry.opentofu.org"

// AccEnv is the environment terraform-plugin-testing needs to run c:
// TF_ACC_TERRAFORM_PATH, and TF_CLI_CONFIG_FILE naming cliConfig, which
// must exist (OpenTofu warns about a missing one on stdout, where
// terraform-exec then cannot read its version). For OpenTofu,
// TF_ACC_PROVIDER_HOST too: without it the test's init asks for the
// provider under the legacy namespace "-".
func (c CLI) AccEnv(cliConfig string) []string {
	env := []string{"TF_ACC_TERRAFORM_PATH=" + c.Path, "TF_CLI_CONFIG_FILE=" + cliConfig}
	if c.Kind == OpenTofu {
		env = append(env, "TF_ACC_PROVIDER_HOST="+OpenTofuProviderHost)
	}
	return env
}

// RecordSkip appends "test: why" to the file SkipLogEnv names, if set.
func RecordSkip(test, why string) error {
	path := os.Getenv(SkipLogEnv)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s: %s\n", test, why)
	return errors.Join(err, f.Close())
}
