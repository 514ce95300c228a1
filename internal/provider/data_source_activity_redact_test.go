package provider

import (
	"archive/zip"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// redactTestToken is an OIDC token the emulator accepts whose signature
// part is 48 random bytes: no 8 characters of it occur anywhere by chance.
func redactTestToken(t *testing.T) string {
	t.Helper()
	sig := make([]byte, 48)
	if _, err := rand.Read(sig); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(oauthProviderTestJWT("repo:redact-audit", "app-redact"), ".")
	return parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// tokenParts is what counts as a part of token: the token, each of its
// three dot-separated parts, and every 8-character window of its claims and
// signature parts (48 bits of base64url each: a window found is a piece
// of the token, not a coincidence). The claims' values themselves (iss,
// sub, aud) are no secret: the resource keeps them as issuer, subject and
// audience.
func tokenParts(token string) []string {
	parts := strings.Split(token, ".")
	out := append([]string{token}, parts...)
	for _, p := range parts[1:] {
		for i := 0; i+8 <= len(p); i++ {
			out = append(out, p[i:i+8])
		}
	}
	return out
}

// zipText is the content of every file in the zip archive at path (a saved
// plan), one after the other.
func zipText(t *testing.T, path string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var b strings.Builder
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(f.Name + "\n" + string(data) + "\n")
	}
	return b.String()
}

// TestAccActivityDataSource_writeOnlyTokenStaysOutOfState is the audit of
// issue 34, with the real CLI: an OAuth provider is created from a token
// given only through oidc_token_wo (an ephemeral variable), then its create
// activity, found in the service's activity list, is read with
// custody_activity, through a saved plan. No part of the token may be in
// the state file, `terraform show -json` of the state or of the plan, the
// saved plan itself, the CLI's output or the TRACE log; the activity's
// intent and the requester's vote message show the marker in its place.
func TestAccActivityDataSource_writeOnlyTokenStaysOutOfState(t *testing.T) {
	e := newAccEmulator(t)
	token := redactTestToken(t)
	cli := newTFCLI(t, e)
	const create = `
variable "oidc_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "custody_oauth_provider" "audited" {
  user_id               = "user-root"
  provider_name         = "audited"
  oidc_token_wo         = var.oidc_token
  oidc_token_wo_version = 1
}
`
	logs := t.TempDir()
	var outputs []string
	run := func(name string, env []string, args ...string) string {
		t.Helper()
		env = append(env, "TF_VAR_oidc_token="+token, "TF_LOG=trace", "TF_LOG_PATH="+filepath.Join(logs, name+".log"))
		out, code := cli.run(env, args...)
		if code != 0 {
			t.Fatalf("terraform %s exited %d:\n%s", strings.Join(args, " "), code, out)
		}
		if args[0] != "show" { // show's output is searched on its own
			outputs = append(outputs, out)
		}
		return out
	}

	cli.write(create)
	run("create", nil, "apply", "-auto-approve")
	var activityID string
	activityTestFind(t, e, client.OpCreateOauthProviders.Type, &activityID)()

	cli.write(create + activityTestRead("activity_id", "custody_activity.audit"))
	withID := []string{"TF_VAR_activity_id=" + activityID}
	run("plan", withID, "plan", "-out=audit.tfplan")
	planJSON := run("show-plan", nil, "show", "-json", "audit.tfplan")
	planFile := zipText(t, filepath.Join(cli.dir, "audit.tfplan"))
	run("apply", withID, "apply", "audit.tfplan")
	stateJSON := run("show-state", nil, "show", "-json")
	state, err := os.ReadFile(filepath.Join(cli.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var trace strings.Builder
	entries, err := os.ReadDir(logs)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range entries {
		b, err := os.ReadFile(filepath.Join(logs, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		trace.Write(b)
	}

	places := map[string]string{
		"terraform.tfstate": string(state), "terraform show -json (state)": stateJSON,
		"terraform show -json (plan)": planJSON, "the saved plan": planFile,
		"the CLI's output": strings.Join(outputs, "\n"), "the TRACE log": trace.String(),
	}
	for where, text := range places {
		for _, part := range tokenParts(token) {
			if n := strings.Count(text, part); n > 0 {
				t.Errorf("%s holds %.20q..., a part of the token, %d times", where, part, n)
				break
			}
		}
	}

	// The search proves something only if the activity was read into plan
	// and state, redacted, and the provider's own log lines are in the log.
	var st struct {
		Resources []struct {
			Mode, Type string
			Instances  []struct {
				Attributes struct {
					Intent string `json:"intent"`
					Votes  []struct {
						Message string `json:"message"`
					} `json:"votes"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(state, &st); err != nil {
		t.Fatal(err)
	}
	read := false
	for _, r := range st.Resources {
		if r.Mode != "data" || r.Type != "custody_activity" || len(r.Instances) != 1 {
			continue
		}
		a := r.Instances[0].Attributes
		marker := `"oidcToken":"` + client.Redacted + `"`
		if !strings.Contains(a.Intent, marker) || len(a.Votes) != 1 || !strings.Contains(a.Votes[0].Message, marker) {
			t.Errorf("the activity in state does not show the redacted token:\nintent %s\nvotes %+v", a.Intent, a.Votes)
		}
		read = true
	}
	if !read {
		t.Fatalf("no custody_activity in the state:\n%s", state)
	}
	if !strings.Contains(planJSON, `"custody_activity"`) || !strings.Contains(planFile, "custody_activity") {
		t.Fatal("the saved plan does not hold the activity read")
	}
	for _, want := range []string{"Calling provider defined DataSource Read", "Calling provider defined Resource Create",
		"tf_provider_addr=registry.terraform.io/custody-labs/custody"} {
		if !strings.Contains(trace.String(), want) {
			t.Fatalf("the trace log has no %q: the provider's log lines are missing, the test would prove nothing", want)
		}
	}
}

// TestActivityToModelRedactsEverySecretField: whatever part of an activity
// holds a listed field, no Terraform value of custody_activity keeps its
// value, while the activity the client holds (whose requester's message
// finds a lost submission by its hash) keeps it.
func TestActivityToModelRedactsEverySecretField(t *testing.T) {
	for _, f := range client.SecretFields() {
		t.Run(f.Name, func(t *testing.T) {
			secret := "S3CRET-" + f.Name
			obj := func(extra ...string) string {
				b, err := json.Marshal(map[string]any{f.Name: secret, "kept": strings.Join(extra, "")})
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			body := `{"type":"ACTIVITY_TYPE_FUTURE_V3","parameters":{"items":[` + obj() + `]}}`
			act := &client.Activity{ID: "act-1", Status: client.StatusFailed, Type: "ACTIVITY_TYPE_FUTURE_V3", Fingerprint: "fp-1",
				Intent:    map[string]json.RawMessage{"futureIntentV3": json.RawMessage(`{"items":[` + obj() + `]}`)},
				Result:    map[string]json.RawMessage{"futureResultV2": json.RawMessage(obj())},
				Votes:     []client.Vote{{ID: "v", Message: body}},
				AppProofs: []client.AppProof{{ProofPayload: obj()}},
				Failure:   &client.Status{Code: client.CodeInvalidArgument, Message: "m", Details: []json.RawMessage{json.RawMessage(obj())}},
			}
			var m activityDataSourceModel
			if diags := activityToModel(act, &m); diags.HasError() {
				t.Fatal(diags)
			}
			values := map[string]string{"intent": m.Intent.ValueString(), "result": m.Result.ValueString(),
				"votes[0].message": m.Votes[0].Message.ValueString(), "app_proofs[0].proof_payload": m.AppProofs[0].ProofPayload.ValueString(),
				"failure.details_json": m.Failure.DetailsJSON.ValueString()}
			if f.LowEntropy {
				// Withheld whole with the hashes and signatures of it.
				values["fingerprint"] = m.Fingerprint.ValueString()
				for _, attr := range []string{"votes[0].message", "app_proofs[0].proof_payload", "fingerprint"} {
					if values[attr] != client.Redacted {
						t.Errorf("%s = %s", attr, values[attr])
					}
					delete(values, attr)
				}
			}
			for attr, v := range values {
				if strings.Contains(v, "S3CRET") || !strings.Contains(v, client.Redacted) || !strings.Contains(v, "kept") {
					t.Errorf("%s = %s", attr, v)
				}
			}
			if act.Votes[0].Message != body {
				t.Error("the client's activity was changed")
			}
		})
	}
}
