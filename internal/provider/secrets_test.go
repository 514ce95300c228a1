package provider

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// stampRecorder passes requests to the emulator and keeps every X-Stamp it
// saw, so that a test can look for them in logs.
type stampRecorder struct {
	next   http.Handler
	mu     sync.Mutex
	stamps []string
}

func (s *stampRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if v := r.Header.Get(client.StampHeader); v != "" {
		s.mu.Lock()
		s.stamps = append(s.stamps, v)
		s.mu.Unlock()
	}
	s.next.ServeHTTP(w, r)
}

func (s *stampRecorder) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.stamps...)
}

// TestAccSecretsStayOutOfLogsPlansAndState applies policies and OAuth
// providers (one with a sensitive token, one with a write-only token) with
// TF_LOG=trace, the provider configured in the file as well as from the
// environment. Neither the trace log (which carries the provider process's
// own log lines), nor the plan and apply output, may hold the API private
// key, a stamp or its signature, or an OIDC token; the write-only token
// must not reach state.
func TestAccSecretsStayOutOfLogsPlansAndState(t *testing.T) {
	e := newAccEmulator(t)
	rec := &stampRecorder{next: e.srv}
	hs := httptest.NewServer(rec)
	t.Cleanup(hs.Close)
	e.url = hs.URL

	sensitiveToken := oauthProviderTestJWT("repo:secrets-sensitive", "app-s")
	writeOnlyToken := oauthProviderTestJWT("repo:secrets-write-only", "app-w")
	cli := newTFCLI(t, e)
	// The tokens come in as variables, as in a pipeline: a literal in the
	// file would be quoted by Terraform's own diagnostics (the source
	// snippet under a warning), which no provider can prevent.
	cli.write(e.providerBlock() + `
variable "sensitive_token" {
  type      = string
  sensitive = true
}

variable "write_only_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "custody_policy" "p" {
  count  = 3
  name   = "logged ${count.index}"
  effect = "EFFECT_ALLOW"
}

resource "custody_oauth_provider" "sensitive" {
  user_id       = "user-root"
  provider_name = "sensitive"
  oidc_token    = var.sensitive_token
}

resource "custody_oauth_provider" "write_only" {
  user_id               = "user-root"
  provider_name         = "write-only"
  oidc_token_wo         = var.write_only_token
  oidc_token_wo_version = 1
}
`)

	logPath := filepath.Join(t.TempDir(), "trace.log")
	trace := []string{"TF_LOG=trace", "TF_LOG_PATH=" + logPath,
		"TF_VAR_sensitive_token=" + sensitiveToken, "TF_VAR_write_only_token=" + writeOnlyToken}
	plan, code := cli.run(trace, "plan")
	if code != 0 {
		t.Fatalf("plan exited %d:\n%s", code, plan)
	}
	if !strings.Contains(plan, "(sensitive value)") || !strings.Contains(plan, "(write-only attribute)") {
		t.Errorf("the plan does not mask the tokens as sensitive and write-only:\n%s", plan)
	}
	apply, code := cli.run(trace, "apply", "-auto-approve")
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s", code, apply)
	}
	logged, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// The log is worth searching only if the provider's own lines are in it.
	for _, want := range []string{"created policy", "Calling provider defined Resource Create", "tf_provider_addr=registry.terraform.io/custody-labs/custody"} {
		if !strings.Contains(string(logged), want) {
			t.Fatalf("the trace log (%d bytes) has no %q: the provider's log lines are missing, the test would prove nothing", len(logged), want)
		}
	}

	secrets := map[string]string{
		"the API private key":           e.key.PrivateKeyHex(),
		"the API private key (upper)":   strings.ToUpper(e.key.PrivateKeyHex()),
		"the sensitive OIDC token":      sensitiveToken,
		"the sensitive token's claims":  strings.Split(sensitiveToken, ".")[1],
		"the write-only OIDC token":     writeOnlyToken,
		"the write-only token's claims": strings.Split(writeOnlyToken, ".")[1],
	}
	stamps := rec.all()
	if len(stamps) < 5 {
		t.Fatalf("only %d stamped requests were seen", len(stamps))
	}
	for i, s := range stamps {
		secrets[fmt.Sprintf("stamp %d", i)] = s
		secrets[fmt.Sprintf("stamp %d's signature", i)] = stampSignature(t, s)
	}
	for name, secret := range secrets {
		for where, text := range map[string]string{"the trace log": string(logged), "the plan output": plan, "the apply output": apply} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %s", where, name)
			}
		}
	}

	state, err := os.ReadFile(filepath.Join(cli.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(state), writeOnlyToken) || strings.Contains(string(state), strings.Split(writeOnlyToken, ".")[1]) {
		t.Error("the write-only token is in the state file")
	}
	if !strings.Contains(string(state), `"oidc_token_wo_version": 1`) {
		t.Error("the state file has no oidc_token_wo_version: the write-only resource was not applied")
	}
}

// stampSignature extracts the hex signature from an X-Stamp value.
func stampSignature(t *testing.T, stamp string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(stamp)
	if err != nil {
		t.Fatalf("stamp %q: %v", stamp, err)
	}
	var s client.Stamp
	if err := json.Unmarshal(raw, &s); err != nil || s.Signature == "" {
		t.Fatalf("stamp %s: %v", raw, err)
	}
	return s.Signature
}
