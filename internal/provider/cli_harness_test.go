package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// tfCLI drives the real terraform binary against a freshly built provider
// binary (dev_overrides, no `terraform init`), for what
// terraform-plugin-testing cannot do: interrupt a running apply, and read
// the CLI's own plan output and trace log, which carry the provider
// process's log lines too.
type tfCLI struct {
	t   *testing.T
	dir string
	env []string
}

// builtProvider is the provider binary, built once per test run, with
// -race when the tests run with it (reusing the packages `go test -race`
// has already compiled) and without it otherwise: the compatibility suite
// runs without -race, and a race build would cost it minutes.
var builtProvider struct {
	once sync.Once
	dir  string
	err  error
}

// raceBuild reports whether this test binary was built with -race.
func raceBuild() bool {
	info, ok := debug.ReadBuildInfo()
	return ok && slices.Contains(info.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}

func providerBinaryDir(t *testing.T) string {
	t.Helper()
	builtProvider.once.Do(func() {
		args := []string{"build", "-o", filepath.Join(builtProvider.dir, "terraform-provider-custody")}
		if raceBuild() {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, "../..")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			builtProvider.err = fmt.Errorf("go build of the provider: %v\n%s", err, out)
		}
	})
	if builtProvider.err != nil {
		t.Fatal(builtProvider.err)
	}
	return builtProvider.dir
}

// needTerraform is the rule resource.Test follows, for tests that run
// terraform themselves: they run with TF_ACC set (make test sets it), and
// then a missing terraform is a failure.
func needTerraform(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	testAccPreCheck(t)
}

// newTFCLI prepares a working directory whose terraform runs use the built
// provider with e's credentials (given as CUSTODY_* variables, as a
// pipeline would).
func newTFCLI(t *testing.T, e *accEmulator) *tfCLI {
	t.Helper()
	needTerraform(t)
	bin := providerBinaryDir(t)
	dir := t.TempDir()
	rc := filepath.Join(dir, "terraform.rc")
	writeFile(t, rc, devOverridesConfig(bin))
	env := []string{}
	for _, kv := range os.Environ() {
		// The test's own TF_* and CUSTODY_* settings must not leak in.
		if !strings.HasPrefix(kv, "TF_") && !strings.HasPrefix(kv, "CUSTODY_") {
			env = append(env, kv)
		}
	}
	env = append(env, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_INPUT=0", "TF_CLI_CONFIG_FILE="+rc,
		"CUSTODY_BASE_URL="+e.url, "CUSTODY_ORGANIZATION_ID="+accOrg,
		"CUSTODY_API_PUBLIC_KEY="+e.key.PublicKeyHex(), "CUSTODY_API_PRIVATE_KEY="+e.key.PrivateKeyHex())
	return &tfCLI{t: t, dir: dir, env: env}
}

// devOverridesConfig is a CLI configuration that runs the provider in
// dir, under the address Terraform gives custody-labs/custody and the one
// OpenTofu gives it.
func devOverridesConfig(dir string) string {
	return fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/custody-labs/custody" = %[1]q
    "registry.opentofu.org/custody-labs/custody" = %[1]q
  }
  direct {}
}
`, dir)
}

// write replaces the configuration with body, after an empty provider
// block (the settings come from the environment), as the docs show it,
// unless body has its own.
func (c *tfCLI) write(body string) {
	c.t.Helper()
	block := "\nprovider \"custody\" {}\n"
	if strings.Contains(body, `provider "custody"`) {
		block = ""
	}
	writeFile(c.t, filepath.Join(c.dir, "main.tf"), `terraform {
  required_providers {
    custody = { source = "custody-labs/custody" }
  }
}
`+block+body)
}

// command returns terraform with args, in the working directory, with
// extra environment; its output goes to out.
func (c *tfCLI) command(ctx context.Context, out *bytes.Buffer, extraEnv []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, terraformBinary(c.t), append(args, "-no-color")...)
	cmd.Dir = c.dir
	cmd.Env = append(append([]string{}, c.env...), extraEnv...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// start starts terraform in the background, its output going to out; the
// caller waits for it.
func (c *tfCLI) start(ctx context.Context, out *bytes.Buffer, args ...string) *exec.Cmd {
	c.t.Helper()
	cmd := c.command(ctx, out, nil, args...)
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	return cmd
}

// run runs terraform to the end and returns its output and exit code.
func (c *tfCLI) run(extraEnv []string, args ...string) (string, int) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), 5*time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := c.command(ctx, &out, extraEnv, args...).Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	}
	c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out.String())
	return "", -1
}

// mustRun runs terraform and fails the test unless it exits with want.
func (c *tfCLI) mustRun(want int, args ...string) string {
	c.t.Helper()
	out, code := c.run(nil, args...)
	if code != want {
		c.t.Fatalf("terraform %s exited %d, want %d:\n%s", strings.Join(args, " "), code, want, out)
	}
	return out
}

// policyStateIDs returns the ids of the custody_policy instances in the
// local state.
func (c *tfCLI) policyStateIDs() []string {
	c.t.Helper()
	raw, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Type      string `json:"type"`
			Instances []struct {
				Attributes struct {
					ID string `json:"id"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		c.t.Fatalf("reading terraform.tfstate: %v", err)
	}
	var ids []string
	for _, r := range st.Resources {
		if r.Type != "custody_policy" {
			continue
		}
		for _, in := range r.Instances {
			ids = append(ids, in.Attributes.ID)
		}
	}
	return ids
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
