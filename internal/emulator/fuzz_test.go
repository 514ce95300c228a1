package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Fuzz targets of the emulator's request handling. Requests go straight to
// Server.ServeHTTP through httptest.NewRecorder, so a panic reaches the
// fuzzer instead of being recovered by net/http. The clock is fixed, so
// that timestampMs values in seeds and crashers stay live forever.

// A fixed root key pair, so that seeds and crashers are reproducible.
const (
	fuzzRootPublicKey  = "02724268adc862cb6a063de99555e65a920f228dfa90490e1f46d0346ebd87b7f4"
	fuzzRootPrivateKey = "6e36a7e5adb567899060c48ecd055285f5616f309cbfe5c17749231733e6920e"
	fuzzSubOrg         = "org-sub"
	fuzzMaxBody        = 64 << 10
)

var fuzzNow = time.UnixMilli(1795300000000)

// fuzzDocumentedStatuses are the statuses the service answers a POST with
// when no fault is injected.
var fuzzDocumentedStatuses = []int{http.StatusOK, http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden,
	http.StatusNotFound, http.StatusRequestEntityTooLarge}

// okTransport answers every webhook delivery 204 from memory.
type okTransport struct{}

func (okTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusNoContent, Status: "204 No Content", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: http.NoBody, Request: r}, nil
}

// fuzzEmulator is one server for a whole fuzz target; reset gives it a
// new state before each input so that inputs do not depend on each other.
type fuzzEmulator struct {
	srv  *Server
	opts Options
	key  *client.APIKey
}

func newFuzzEmulator(f *testing.F) *fuzzEmulator {
	f.Helper()
	key, err := client.ParseAPIKey(fuzzRootPublicKey, fuzzRootPrivateKey)
	if err != nil {
		f.Fatal(err)
	}
	opts := Options{
		OrganizationID: testOrg, OrganizationName: "Fuzz Org", RootQuorum: 1,
		RootUsers:         []RootUser{{UserID: "user-root", UserName: "root", APIPublicKey: fuzzRootPublicKey}},
		MaxBodyBytes:      fuzzMaxBody,
		WebhookHTTPClient: &http.Client{Transport: okTransport{}},
		Now:               func() time.Time { return fuzzNow },
		Fixtures: &Fixtures{
			SubOrganizations: []FixtureOrganization{{OrganizationID: fuzzSubOrg, Name: "Sub"}},
			Users:            []FixtureUser{{UserID: "user-alice", UserName: "alice"}},
			MfaPolicies: map[string][]client.MfaPolicy{"user-alice": {{MfaPolicyID: "mfa-1", MfaPolicyName: "step-up", Condition: "true",
				RequiredAuthenticationMethods: []client.RequiredAuthenticationMethod{{Any: []client.AuthenticationMethod{{Type: "AUTHENTICATION_TYPE_PASSKEY"}}}}}}},
			AppStatuses:             []client.AppStatus{{AppID: "app-1"}},
			SendTransactionStatuses: map[string]client.GetSendTransactionStatusResponse{"sts-1": {TxStatus: "COMPLETED"}},
		},
	}
	srv, err := New(opts)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	return &fuzzEmulator{srv: srv, opts: opts, key: key}
}

func (e *fuzzEmulator) reset(t *testing.T) {
	st, err := e.srv.firstStart(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.mu.Lock()
	e.srv.st = st
	e.srv.mu.Unlock()
}

// serve posts body to path with the X-Stamp header (none when empty).
func (e *fuzzEmulator) serve(path, stamp string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if stamp != "" {
		req.Header.Set(client.StampHeader, stamp)
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return rec
}

// fuzzRoute is one operation's path.
type fuzzRoute struct {
	kind routeKind
	op   string
}

func (r fuzzRoute) path() string { return "/public/v1/" + string(r.kind) + "/" + r.op }

// fuzzRoutes lists every registered operation, submits then queries, each
// sorted, so that a selector byte always names the same one.
func fuzzRoutes() []fuzzRoute {
	var out []fuzzRoute
	for _, op := range slices.Sorted(maps.Keys(submitOps)) {
		out = append(out, fuzzRoute{routeSubmit, op})
	}
	for _, op := range slices.Sorted(maps.Keys(queryOps)) {
		out = append(out, fuzzRoute{routeQuery, op})
	}
	return out
}

// fuzzEnvelope builds a submit body at the fixed clock.
func fuzzEnvelope(typ, org string, at time.Time, params string) []byte {
	return []byte(`{"type":` + strconv.Quote(typ) + `,"timestampMs":"` + strconv.FormatInt(at.UnixMilli(), 10) +
		`","organizationId":` + strconv.Quote(org) + `,"parameters":` + params + `}`)
}

// isJSONObject is the test's own rule for "the body is one JSON object".
func isJSONObject(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return json.Valid(b) && len(t) > 0 && t[0] == '{'
}

// checkAnswer asserts what every answer must be: a documented status; a
// JSON error body {code, message, details} with a message when not 2xx; a
// JSON object when 2xx.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, path string, body []byte) {
	t.Helper()
	status, raw := rec.Code, rec.Body.Bytes()
	if !slices.Contains(fuzzDocumentedStatuses, status) {
		t.Fatalf("%s: undocumented status %d for body %q: %s", path, status, body, raw)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s: HTTP %d with Content-Type %q", path, status, ct)
	}
	if status == http.StatusOK {
		if !isJSONObject(raw) {
			t.Fatalf("%s: HTTP 200 with a body that is not a JSON object: %q", path, raw)
		}
		return
	}
	var e struct {
		Code    *int              `json:"code"`
		Message *string           `json:"message"`
		Details []json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || e.Code == nil || *e.Code == 0 || e.Message == nil || e.Details == nil {
		t.Fatalf("%s: HTTP %d error body is not {code, message, details}: %q (%v)", path, status, raw, err)
	}
	if strings.TrimSpace(*e.Message) == "" {
		t.Fatalf("%s: HTTP %d error body has an empty message: %q", path, status, raw)
	}
}
