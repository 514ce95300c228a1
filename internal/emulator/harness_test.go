package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

const testOrg = "org-test"

// testEmulator is an emulator served on 127.0.0.1 with a client of it.
type testEmulator struct {
	srv    *Server
	http   *httptest.Server
	key    *client.APIKey // the first root user's key
	client *client.Client
}

// newTestEmulator starts an emulator whose first root user owns a fresh
// key; mutate adjusts the options before start.
func newTestEmulator(t *testing.T, mutate ...func(*Options)) *testEmulator {
	t.Helper()
	key := clienttest.NewAPIKey(t)
	opts := Options{OrganizationID: testOrg, OrganizationName: "Test Org", RootUsers: []RootUser{{UserID: "user-root", UserName: "root", APIPublicKey: key.PublicKeyHex()}}}
	for _, m := range mutate {
		m(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatalf("emulator.New: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return &testEmulator{srv: srv, http: hs, key: key, client: clientFor(t, hs.URL, key)}
}

// newPersistentEmulator is a test emulator that keeps its state in a file
// of its own, and the path of that file.
func newPersistentEmulator(t *testing.T) (*testEmulator, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.json")
	return newTestEmulator(t, func(o *Options) { o.StatePath = path }), path
}

// restarted stops e and serves a new emulator from the state file at path,
// as a restarted process would: the file alone must hold what it needs.
// It returns the new emulator and its URL.
func restarted(t *testing.T, e *testEmulator, path string) (*Server, string) {
	t.Helper()
	e.http.Close()
	e.srv.Close()
	again, err := New(Options{StatePath: path})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Cleanup(again.Close)
	hs := httptest.NewServer(again)
	t.Cleanup(hs.Close)
	return again, hs.URL
}

// clientFor is a client of the emulator with fast polling.
func clientFor(t *testing.T, baseURL string, key *client.APIKey) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: baseURL, OrganizationID: testOrg, APIPublicKey: key.PublicKeyHex(), APIPrivateKey: key.PrivateKeyHex(),
		RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond, PollInterval: time.Millisecond, PollIntervalMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rawAnswer is an answer to a raw request.
type rawAnswer struct {
	Status int
	Body   map[string]any
	Raw    []byte
}

// jsonAt walks a decoded JSON value down keys, each step an object, and
// returns what it finds at the end as a T.
func jsonAt[T any](v any, keys ...string) (T, error) {
	for i, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			var zero T
			return zero, fmt.Errorf("at %q: %#v is not an object", strings.Join(keys[:i], "."), v)
		}
		v = m[k]
	}
	out, ok := v.(T)
	if !ok {
		return out, fmt.Errorf("at %q: %#v is not a %T", strings.Join(keys, "."), v, out)
	}
	return out, nil
}

// mustJSONAt is jsonAt that fails the test on a mismatch; call it from the
// test's goroutine only.
func mustJSONAt[T any](t *testing.T, v any, keys ...string) T {
	t.Helper()
	out, err := jsonAt[T](v, keys...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// post sends body as is, stamped with key (nil: no stamp).
func (e *testEmulator) post(t *testing.T, path string, body []byte, key *client.APIKey) rawAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.http.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != nil {
		stamp, err := key.Stamp(body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(client.StampHeader, stamp)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) rawAnswer {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	out := rawAnswer{Status: resp.StatusCode, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// submitBody builds a submit envelope with a current timestamp.
func submitBody(typ string, params string) []byte {
	return []byte(fmt.Sprintf(`{"type":%q,"timestampMs":%q,"organizationId":%q,"parameters":%s}`,
		typ, strconv.FormatInt(time.Now().UnixMilli(), 10), testOrg, params))
}

// wantError checks an error answer's status and that its message contains
// want; error bodies are always {code, message, details}.
func wantError(t *testing.T, a rawAnswer, status int, want string) {
	t.Helper()
	if a.Status != status {
		t.Fatalf("status = %d, want %d; body %s", a.Status, status, a.Raw)
	}
	msg, _ := a.Body["message"].(string)
	_, hasCode := a.Body["code"].(float64)
	_, hasDetails := a.Body["details"].([]any)
	if !hasCode || !hasDetails || len(a.Body) != 3 {
		t.Fatalf("error body %s is not {code, message, details}", a.Raw)
	}
	if !bytes.Contains([]byte(msg), []byte(want)) {
		t.Fatalf("message %q does not contain %q", msg, want)
	}
}

func whoami() client.WhoamiRequest { return client.WhoamiRequest{} }

// wantFailedActivity checks that err is a FAILED activity with code and a
// message containing want; with client.CodeNotFound, it must match ErrNotFound too.
func wantFailedActivity(t *testing.T, err error, code int, want string) {
	t.Helper()
	var ae *client.ActivityError
	if !errors.As(err, &ae) || ae.Status != client.StatusFailed || ae.Failure == nil {
		t.Fatalf("err = %v, want a FAILED activity", err)
	}
	if ae.Failure.Code != code || !strings.Contains(ae.Failure.Message, want) {
		t.Fatalf("failure = %+v, want code %d and a message containing %q", ae.Failure, code, want)
	}
	if code == client.CodeNotFound && !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("errors.Is(%v, client.ErrNotFound) = false", err)
	}
}

// withClock runs the emulator on c, a clock the test moves (a second at a
// time, so that createdAt and updatedAt differ predictably), started at
// real time to stay within the liveness window.
func withClock(c *testclock.Clock) func(*Options) { return func(o *Options) { o.Now = c.Now } }

// createPolicies creates ps in one create_policies activity.
func createPolicies(t *testing.T, c *client.Client, ps ...client.PolicyParams) *client.Submitted[client.CreatePoliciesResult] {
	t.Helper()
	got, err := c.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: ps})
	if err != nil {
		t.Fatalf("create_policies: %v", err)
	}
	return got
}

// getPolicy is the stored policy id.
func getPolicy(t *testing.T, c *client.Client, id string) client.Policy {
	t.Helper()
	got, err := c.GetPolicy(t.Context(), client.GetPolicyRequest{PolicyID: id})
	if err != nil {
		t.Fatalf("get_policy %s: %v", id, err)
	}
	return got.Policy
}

// policyIDs lists the ids of the stored policies, in list_policies order.
func policyIDs(t *testing.T, e *testEmulator) []string {
	t.Helper()
	list, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return idsOf(list.Policies, func(p client.Policy) string { return p.PolicyID })
}

// idsOf lists the id of each item, in order.
func idsOf[T any](items []T, id func(T) string) []string {
	var ids []string
	for _, it := range items {
		ids = append(ids, id(it))
	}
	return ids
}

// approve votes as c's user (who) to approve the activity needed waits on,
// and wants the activity's status after the vote to be want.
func approve(t *testing.T, who string, c *client.Client, needed *client.ConsensusNeededError, want string) *client.Activity {
	t.Helper()
	act, err := c.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: needed.Fingerprint})
	if err != nil || act.Status != want {
		t.Fatalf("%s's approval: %+v %v, want %s", who, act, err, want)
	}
	return act
}

// nextMillisecond waits for the clock to pass the current millisecond.
// Two users' approvals of one activity are bodies that differ only in
// timestampMs, and the service answers a byte-identical body as the same
// request; a test that has two users vote must not send both in one
// millisecond, or the second vote is the first one's answer.
func nextMillisecond() {
	for start := time.Now().UnixMilli(); time.Now().UnixMilli() == start; {
		time.Sleep(50 * time.Microsecond)
	}
}
