package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Fuzz targets of the client's decoding. Their seed corpora run in every
// plain `go test`; scripts/fuzz.sh runs each target for a bounded time.
// Every answer is served from memory (fuzzTransport), never the network.

// Fixed key pairs, so that seeds and crashers are reproducible.
const (
	fuzzPublicKey   = "02724268adc862cb6a063de99555e65a920f228dfa90490e1f46d0346ebd87b7f4"
	fuzzPrivateKey  = "6e36a7e5adb567899060c48ecd055285f5616f309cbfe5c17749231733e6920e"
	fuzzPublicKey2  = "028a28cfc8e02f9986339d5107a827ffc68a2e96117c7b6d90e86fb62ce92d8cd6"
	fuzzPrivateKey2 = "c3efb148e516614c77bebc6e9fe2748dd1ab12aa6beb5eb1cc1e7f8395f098ba"
	// p256Order is n, the order of P-256: not a valid private scalar.
	p256Order = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"
)

// fuzzTransport answers every request from memory.
type fuzzTransport struct {
	answer func(path string) (int, []byte)
	paths  []string
}

func (ft *fuzzTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	ft.paths = append(ft.paths, r.URL.Path)
	status, body := ft.answer(r.URL.Path)
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       r,
	}, nil
}

var errPollLimit = errors.New("fuzz: poll limit reached")

// newFuzzBaseClient is built once per target; fuzzClient copies it per
// input with a fresh in-memory transport.
func newFuzzBaseClient(tb testing.TB) *Client {
	tb.Helper()
	c, err := New(Config{BaseURL: "http://127.0.0.1:1", OrganizationID: "org-1",
		APIPublicKey: fuzzPublicKey, APIPrivateKey: fuzzPrivateKey, Retries: NoRetries})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// fuzzClient is a copy of base that talks to ft, never retries, and gives
// up polling after three waits instead of sleeping.
func fuzzClient(base *Client, ft *fuzzTransport) *Client {
	c := *base
	c.http = &http.Client{Transport: ft}
	c.maxRetries = 0
	c.now = func() time.Time { return time.UnixMilli(1795300000123) }
	c.jitter = func(d time.Duration) time.Duration { return d }
	waits := 0
	c.sleep = func(context.Context, time.Duration) error {
		if waits++; waits > 3 {
			return errPollLimit
		}
		return nil
	}
	return &c
}

// checkClearError fails unless err has a message that names the operation.
func checkClearError(t *testing.T, err error, op string) {
	t.Helper()
	msg := err.Error()
	if strings.TrimSpace(msg) == "" {
		t.Fatalf("%s: error %#v has an empty message", op, err)
	}
	if op != "" && !strings.Contains(msg, op) {
		t.Fatalf("%s: error %q does not name the operation", op, msg)
	}
}

// decodeActivityRecord is the test's own idea of a valid activity record:
// it decodes as an ActivityResponse and names an activity.
func decodeActivityRecord(b []byte) (*Activity, bool) {
	var r ActivityResponse
	if err := json.Unmarshal(b, &r); err != nil || r.Activity.ID == "" {
		return nil, false
	}
	return &r.Activity, true
}

// checkTimestamps converts and round-trips every timestamp of act.
func checkTimestamps(t *testing.T, act *Activity) {
	t.Helper()
	tss := []Timestamp{act.CreatedAt, act.UpdatedAt}
	for _, v := range act.Votes {
		tss = append(tss, v.CreatedAt, v.User.CreatedAt, v.User.UpdatedAt)
	}
	for _, ts := range tss {
		_, _ = ts.Time() // must not panic, whatever the text
		b, err := json.Marshal(ts)
		if err != nil {
			t.Fatalf("timestamp %#v does not encode: %v", ts, err)
		}
		var back Timestamp
		if err := json.Unmarshal(b, &back); err != nil || back != ts {
			t.Fatalf("timestamp %#v encodes as %s, which decodes to %#v (%v)", ts, b, back, err)
		}
	}
}

// activitySeedBodies are answers of submit and get_activity: valid ones in
// both timestamp shapes, and broken ones.
func activitySeedBodies() [][]byte {
	var out [][]byte
	for _, st := range []string{StatusCompleted, StatusPending, StatusFailed, StatusConsensusNeeded, StatusRejected, StatusAuthenticatorsNeeded, StatusCreated} {
		out = append(out, []byte(activityJSON(st, true)), []byte(activityJSON(st, false)))
	}
	valid := activityJSON(StatusCompleted, false)
	for _, s := range []string{
		valid[:len(valid)/2], // truncated
		valid[:len(valid)-1],
		``, `null`, `{}`, `[]`, `"activity"`, `0`, `{"activity":null}`, `{"activity":{}}`, `{"activity":[]}`,
		`{"activity":{"id":""}}`,
		`{"activity":{"id":7}}`,
		`{"activity":{"id":"act-9","status":"ACTIVITY_STATUS_COMPLETED"}}`,
		`{"activity":{"id":"act-9","status":"ACTIVITY_STATUS_COMPLETED","result":{"createPoliciesResult":{"policyIds":["p-1"]}}}}`,
		`{"activity":{"id":"act-9","status":"ACTIVITY_STATUS_COMPLETED","result":{"createPoliciesResult":{"policyIds":"p-1"}}}}`,
		`{"activity":{"id":"act-9","status":"ACTIVITY_STATUS_COMPLETED","result":{"createPoliciesResult":null}}}`,
		`{"activity":{"id":"act-9","status":"ACTIVITY_STATUS_COMPLETED","result":null}}`,
		`{"activity":{"id":"act-9","status":"ACTIVITY_STATUS_WHATEVER"}}`,
		`{"activity":{"id":"act-9","status":7}}`,
		`{"activity":{"id":"act-9","canApprove":"yes"}}`,
		`{"activity":{"id":"act-9","votes":[null,{}]}}`,
		`{"activity":{"id":"act-9","votes":{}}}`,
		`{"activity":{"id":"act-9","createdAt":{"seconds":1795300000,"nanos":0}}}`,
		`{"activity":{"id":"act-9","createdAt":{"seconds":"99999999999999999999999","nanos":"-1"}}}`,
		`{"activity":{"id":"act-9","createdAt":{"seconds":"1795300000","nanos":"1000000000"}}}`,
		`{"activity":{"id":"act-9","createdAt":"not a time","updatedAt":"1795300000"}}`,
		`{"activity":{"id":"act-9","createdAt":null,"updatedAt":12345678901234567890123456789}}`,
		`{"activity":{"id":"act-9","failure":{"code":1e999}}}`,
		`{"activity":{"id":"act-9","failure":{"code":5,"message":"gone","details":[1,"x",null]}},"status":"ACTIVITY_STATUS_FAILED"}`,
		`{"activity":{"id":"act-9","status":"ACTIVITY_STATUS_FAILED","failure":{"code":5,"message":"gone"}}}`,
		`{"activity":{"id":"act-9","intent":{"x":}}}`,
		`{"activity":{"id":"act-9"}}trailing`,
		`{"activity":{"id":"act-9","id":""}}`,
		"{\"activity\":{\"id\":\"act-\xff\"}}",
		`{"activity":{"id":"act-9","fingerprint":"` + strings.Repeat("f", 4096) + `"}}`,
		strings.Repeat(`{"activity":`, 200) + strings.Repeat(`}`, 200),
	} {
		out = append(out, []byte(s))
	}
	return out
}

// FuzzActivityDecoding feeds arbitrary answers to a submit and to the
// get_activity polls that follow it, and to get_activity alone. The first
// byte picks the call. It asserts: no panic; an answer that is not an
// activity record (one that decodes and has an id) is an error, never a
// zero-value success; a success is a COMPLETED activity whose result
// decodes; every error has a message that names the operation.
func FuzzActivityDecoding(f *testing.F) {
	base := newFuzzBaseClient(f)
	bodies := activitySeedBodies()
	completed := []byte(activityJSON(StatusCompleted, false))
	pending := []byte(activityJSON(StatusPending, true))
	for _, b := range bodies {
		f.Add(uint8(0), b, b)         // get_activity alone
		f.Add(uint8(1), b, completed) // the submit answer
		f.Add(uint8(1), pending, b)   // a poll answer
		f.Add(uint8(3), b, b)         // approve_activity
	}
	for _, b := range bodies[:14] {
		f.Add(uint8(2), b, b)
		f.Add(uint8(4), b, b)
	}
	// A poll that answers with another activity than the one submitted:
	// its result must not pass for the submitted activity's.
	f.Add(uint8(1), pending, bytes.Replace(completed, []byte(`"act-9"`), []byte(`"act-other"`), 1))

	f.Fuzz(func(t *testing.T, sel uint8, submitBody, pollBody []byte) {
		ft := &fuzzTransport{answer: func(path string) (int, []byte) {
			switch {
			case strings.HasPrefix(path, "/public/v1/submit/"):
				return http.StatusOK, submitBody
			case path == "/public/v1/query/get_activity":
				return http.StatusOK, pollBody
			}
			return http.StatusNotFound, []byte(`{"code":5,"message":"unexpected path"}`)
		}}
		c := fuzzClient(base, ft)
		ctx := context.Background()
		// last is the answer the client saw last.
		last := func() []byte {
			if slices.Contains(ft.paths, "/public/v1/query/get_activity") {
				return pollBody
			}
			return submitBody
		}
		switch sel % 5 {
		case 0: // get_activity on its own
			act, err := c.GetActivity(ctx, GetActivityRequest{ActivityID: "act-9"})
			want, valid := decodeActivityRecord(pollBody)
			if !valid {
				if err == nil {
					t.Fatalf("get_activity accepted %q as %+v", pollBody, act)
				}
				checkClearError(t, err, "get_activity")
				return
			}
			if err != nil {
				t.Fatalf("get_activity refused a valid record %q: %v", pollBody, err)
			}
			if !reflect.DeepEqual(act, want) {
				t.Fatalf("get_activity decoded %q as %+v, want %+v", pollBody, act, want)
			}
			checkTimestamps(t, act)
		case 1: // create_policies: submit, poll, decode the result
			got, err := c.CreatePolicies(ctx, CreatePoliciesParams{Policies: []PolicyParams{{PolicyName: "p", Effect: EffectAllow}}})
			first, firstValid := decodeActivityRecord(submitBody)
			if err != nil {
				checkClearError(t, err, "")
				if firstValid && first.Status == StatusCompleted {
					var r CreatePoliciesResult
					if raw, ok := first.Result["createPoliciesResult"]; ok && json.Unmarshal(raw, &r) == nil {
						t.Fatalf("create_policies refused a completed activity with a result %q: %v", submitBody, err)
					}
				}
				return
			}
			if !firstValid {
				t.Fatalf("create_policies accepted a submit answer %q that is not an activity record", submitBody)
			}
			act, ok := decodeActivityRecord(last())
			if !ok || act.Status != StatusCompleted || got.Activity == nil || got.Activity.Status != StatusCompleted || got.Activity.ID == "" {
				t.Fatalf("create_policies succeeded with activity %+v after answer %q", got.Activity, last())
			}
			if got.Activity.ID != first.ID {
				t.Fatalf("create_policies submitted activity %q but returned the result of %q", first.ID, got.Activity.ID)
			}
			var want CreatePoliciesResult
			if err := json.Unmarshal(act.Result["createPoliciesResult"], &want); err != nil || !reflect.DeepEqual(got.Result, want) {
				t.Fatalf("create_policies result %+v, want %+v (%v)", got.Result, want, err)
			}
			checkTimestamps(t, got.Activity)
		case 2: // set_ip_allowlist: its empty result may be left out
			got, err := c.SetIPAllowlist(ctx, SetIPAllowlistParams{})
			if err != nil {
				checkClearError(t, err, "")
				return
			}
			if _, ok := decodeActivityRecord(submitBody); !ok {
				t.Fatalf("set_ip_allowlist accepted a submit answer %q that is not an activity record", submitBody)
			}
			if act, ok := decodeActivityRecord(last()); !ok || act.Status != StatusCompleted || got.Activity.Status != StatusCompleted {
				t.Fatalf("set_ip_allowlist succeeded with activity %+v after answer %q", got.Activity, last())
			}
		case 3: // approve_activity: the submit answer is the result
			act, err := c.ApproveActivity(ctx, VoteParams{Fingerprint: "fp-9"})
			want, valid := decodeActivityRecord(submitBody)
			if !valid {
				if err == nil {
					t.Fatalf("approve_activity accepted %q as %+v", submitBody, act)
				}
				checkClearError(t, err, "approve_activity")
				return
			}
			if err != nil || !reflect.DeepEqual(act, want) {
				t.Fatalf("approve_activity decoded %q as %+v, %v; want %+v", submitBody, act, err, want)
			}
		case 4: // WaitForActivity: get_activity, then polls
			act, err := c.WaitForActivity(ctx, "act-9")
			if err != nil {
				checkClearError(t, err, "")
				return
			}
			if got, ok := decodeActivityRecord(pollBody); !ok || got.Status != StatusCompleted || act.Status != StatusCompleted {
				t.Fatalf("WaitForActivity succeeded with %+v after answer %q", act, pollBody)
			}
		}
	})
}

// queryTarget is one typed query method of the client.
type queryTarget struct {
	op   string
	call func(ctx context.Context, c *Client) (any, error)
	// decode is the test's oracle: does body decode as the answer type?
	decode func(body []byte) error
}

func qt[R any](op string, call func(ctx context.Context, c *Client) (*R, error)) queryTarget {
	return queryTarget{
		op: op,
		call: func(ctx context.Context, c *Client) (any, error) {
			r, err := call(ctx, c)
			if r == nil {
				return nil, err // a typed nil would hide the absence
			}
			return r, err
		},
		decode: func(body []byte) error { return json.Unmarshal(body, new(R)) },
	}
}

// queryTargets lists every typed query method; TestQueryTargetsAreComplete
// keeps it in step with the source.
var queryTargets = []queryTarget{
	{op: "get_activity",
		call: func(ctx context.Context, c *Client) (any, error) {
			a, err := c.GetActivity(ctx, GetActivityRequest{ActivityID: "act-1"})
			if a == nil {
				return nil, err
			}
			return a, err
		},
		decode: func(body []byte) error {
			if _, ok := decodeActivityRecord(body); !ok {
				return errors.New("not an activity record")
			}
			return nil
		}},
	qt("list_activities", func(ctx context.Context, c *Client) (*ListActivitiesResponse, error) {
		return c.ListActivities(ctx, ListActivitiesRequest{})
	}),
	qt("get_policy_evaluations", func(ctx context.Context, c *Client) (*GetPolicyEvaluationsResponse, error) {
		return c.GetPolicyEvaluations(ctx, GetPolicyEvaluationsRequest{ActivityID: "act-1"})
	}),
	qt("get_app_status", func(ctx context.Context, c *Client) (*GetAppStatusResponse, error) {
		return c.GetAppStatus(ctx, GetAppStatusRequest{AppID: "app-1"})
	}),
	qt("list_supported_assets", func(ctx context.Context, c *Client) (*ListSupportedAssetsResponse, error) {
		return c.ListSupportedAssets(ctx, ListSupportedAssetsRequest{})
	}),
	qt("list_earn_enabled_vaults", func(ctx context.Context, c *Client) (*ListEarnEnabledVaultsResponse, error) {
		return c.ListEarnEnabledVaults(ctx, ListEarnEnabledVaultsRequest{})
	}),
	qt("list_earn_positions", func(ctx context.Context, c *Client) (*ListEarnPositionsResponse, error) {
		return c.ListEarnPositions(ctx, ListEarnPositionsRequest{})
	}),
	qt("get_ip_allowlist", func(ctx context.Context, c *Client) (*GetIPAllowlistResponse, error) {
		return c.GetIPAllowlist(ctx, GetIPAllowlistRequest{})
	}),
	qt("get_mfa_policy", func(ctx context.Context, c *Client) (*GetMfaPolicyResponse, error) {
		return c.GetMfaPolicy(ctx, GetMfaPolicyRequest{UserID: "u-1", MfaPolicyID: "m-1"})
	}),
	qt("get_mfa_policies", func(ctx context.Context, c *Client) (*GetMfaPoliciesResponse, error) {
		return c.GetMfaPolicies(ctx, GetMfaPoliciesRequest{UserID: "u-1"})
	}),
	qt("get_oauth_providers", func(ctx context.Context, c *Client) (*GetOauthProvidersResponse, error) {
		return c.GetOauthProviders(ctx, GetOauthProvidersRequest{UserID: "u-1"})
	}),
	qt("whoami", func(ctx context.Context, c *Client) (*WhoamiResponse, error) {
		return c.Whoami(ctx, WhoamiRequest{})
	}),
	qt("get_policy", func(ctx context.Context, c *Client) (*GetPolicyResponse, error) {
		return c.GetPolicy(ctx, GetPolicyRequest{PolicyID: "p-1"})
	}),
	qt("list_policies", func(ctx context.Context, c *Client) (*ListPoliciesResponse, error) {
		return c.ListPolicies(ctx, ListPoliciesRequest{})
	}),
	qt("list_private_key_tags", func(ctx context.Context, c *Client) (*ListPrivateKeyTagsResponse, error) {
		return c.ListPrivateKeyTags(ctx, ListPrivateKeyTagsRequest{})
	}),
	qt("list_private_keys", func(ctx context.Context, c *Client) (*ListPrivateKeysResponse, error) {
		return c.ListPrivateKeys(ctx, ListPrivateKeysRequest{})
	}),
	qt("get_send_transaction_status", func(ctx context.Context, c *Client) (*GetSendTransactionStatusResponse, error) {
		return c.GetSendTransactionStatus(ctx, GetSendTransactionStatusRequest{SendTransactionStatusID: "sts-1"})
	}),
	qt("list_webhook_endpoints", func(ctx context.Context, c *Client) (*ListWebhookEndpointsResponse, error) {
		return c.ListWebhookEndpoints(ctx, ListWebhookEndpointsRequest{})
	}),
}

// queryOpsInSource lists the Query constants the package's code passes to
// query[...], so that a new query method cannot miss the table or the fuzz.
func queryOpsInSource(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		tb.Fatal(err)
	}
	re := regexp.MustCompile(`query\[\w+\]\(ctx, c, (Query\w+)`)
	var ops []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			ops = append(ops, string(m[1]))
		}
	}
	slices.Sort(ops)
	return slices.Compact(ops)
}

func TestQueryTargetsAreComplete(t *testing.T) {
	var have, table []string
	for _, q := range queryTargets {
		have = append(have, q.op)
	}
	for _, q := range Queries() {
		table = append(table, string(q))
	}
	slices.Sort(have)
	slices.Sort(table)
	if !slices.Equal(have, table) {
		t.Fatalf("queryTargets cover %v; the table has %v", have, table)
	}
	if used := queryOpsInSource(t); len(used) != len(table) {
		t.Fatalf("the methods use %d queries %v; the table lists %d", len(used), used, len(table))
	}
}

// errorStatuses are the non-2xx answers the query fuzz also serves; none is
// retried.
var errorStatuses = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusInternalServerError}

// FuzzQueryResponse serves arbitrary bytes as the answer of the query the
// first byte picks (all typed query methods). The second byte picks the
// status: mostly 200, sometimes an error status. It asserts: no panic; a
// 200 whose body is not JSON, or does not decode as the answer type, is an
// error naming the operation, and one that decodes is a success with a
// value; a non-2xx answer is an *APIError with that status, the operation
// and a non-empty message, matching ErrNotFound exactly for 404 or code 5.
func FuzzQueryResponse(f *testing.F) {
	base := newFuzzBaseClient(f)
	answers := map[string]string{}
	for _, qc := range queryCases {
		answers[qc.op] = qc.answer
	}
	answers["list_private_keys"] = `{"privateKeys":[{"privateKeyId":"pk-1","publicKey":"02aa","privateKeyName":"k","curve":"CURVE_SECP256K1",
 "addresses":[{"format":"ADDRESS_FORMAT_ETHEREUM","address":"0xabc"}],"privateKeyTags":["t-1"],"createdAt":` + ts + `,"updatedAt":"2026-11-21T22:00:00Z","exported":false,"imported":true}]}`
	generic := []string{``, `null`, `{}`, `[]`, `"x"`, `1e999`, `{"a":`, `{}{}`, `{} `, "\xff", `{"createdAt":{"seconds":1}}`}
	for i, q := range queryTargets {
		if a, ok := answers[q.op]; ok {
			f.Add(uint8(i), uint8(1), []byte(a))
			f.Add(uint8(i), uint8(1), []byte(a[:len(a)*2/3]))
			// wrong types: every string value becomes a number
			f.Add(uint8(i), uint8(1), regexp.MustCompile(`"[^"]*"(\s*[,}\]])`).ReplaceAll([]byte(a), []byte(`123456789012345678901234567890$1`)))
			// nulls everywhere
			f.Add(uint8(i), uint8(1), regexp.MustCompile(`:\s*("[^"]*"|\d+|true|false)`).ReplaceAll([]byte(a), []byte(`:null`)))
		}
		for _, g := range generic {
			f.Add(uint8(i), uint8(1), []byte(g))
		}
	}
	for i := range errorStatuses {
		sel := uint8(4 * i) // 4·i % 4 == 0: an error status
		f.Add(uint8(0), sel, []byte(`{"code":5,"message":"activity act-1 not found","details":[]}`))
		f.Add(uint8(1), sel, []byte(`upstream said no`))
		f.Add(uint8(2), sel, []byte(``))
		f.Add(uint8(3), sel, []byte(`{"code":"5","message":7}`))
		f.Add(uint8(4), sel, []byte(strings.Repeat("é", 400)))
	}

	f.Fuzz(func(t *testing.T, opSel, statusSel uint8, body []byte) {
		q := queryTargets[int(opSel)%len(queryTargets)]
		status := http.StatusOK
		if statusSel%4 == 0 {
			status = errorStatuses[int(statusSel/4)%len(errorStatuses)]
		}
		ft := &fuzzTransport{answer: func(string) (int, []byte) { return status, body }}
		got, err := q.call(context.Background(), fuzzClient(base, ft))
		if len(ft.paths) != 1 || ft.paths[0] != "/public/v1/query/"+q.op {
			t.Fatalf("%s sent %v", q.op, ft.paths)
		}
		if status != http.StatusOK {
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("%s: HTTP %d answered %v, want an *APIError", q.op, status, err)
			}
			checkClearError(t, err, q.op)
			if apiErr.HTTPStatus != status || apiErr.Operation != q.op || strings.TrimSpace(apiErr.Message) == "" {
				t.Fatalf("%s: HTTP %d gave %#v", q.op, status, apiErr)
			}
			if wantNF := status == http.StatusNotFound || apiErr.Code == CodeNotFound; errors.Is(err, ErrNotFound) != wantNF {
				t.Fatalf("%s: HTTP %d code %d: errors.Is(ErrNotFound) = %v", q.op, status, apiErr.Code, !wantNF)
			}
			return
		}
		decodeErr := q.decode(body)
		switch {
		case err != nil:
			checkClearError(t, err, q.op)
			if decodeErr == nil {
				t.Fatalf("%s refused %q, which decodes: %v", q.op, body, err)
			}
		case !json.Valid(body):
			t.Fatalf("%s accepted invalid JSON %q as %+v", q.op, body, got)
		case decodeErr != nil:
			t.Fatalf("%s accepted %q, which does not decode (%v), as %+v", q.op, body, decodeErr, got)
		case got == nil:
			t.Fatalf("%s returned neither a value nor an error", q.op)
		}
	})
}

// FuzzParseAPIKey parses arbitrary key pairs. It asserts: no panic; a
// refusal has a message that never echoes the private key; an accepted
// pair is written back canonically (lower-case hex, no spaces), parses
// again to the same key, and signs stamps that verify independently.
func FuzzParseAPIKey(f *testing.F) {
	for _, pair := range [][2]string{
		{fuzzPublicKey, fuzzPrivateKey},
		{fuzzPublicKey2, fuzzPrivateKey2},
		{strings.ToUpper(fuzzPublicKey), strings.ToUpper(fuzzPrivateKey)},
		{" " + fuzzPublicKey + "\n", "\t" + fuzzPrivateKey + " "},
		{fuzzPublicKey, fuzzPrivateKey2},                       // mismatched
		{"03" + fuzzPublicKey[2:], fuzzPrivateKey},             // the other parity
		{"04" + fuzzPublicKey[2:], fuzzPrivateKey},             // not compressed
		{fuzzPublicKey[:64], fuzzPrivateKey},                   // short
		{fuzzPublicKey, fuzzPrivateKey[:63]},                   // odd length
		{fuzzPublicKey, fuzzPrivateKey + "00"},                 // long
		{fuzzPublicKey, strings.Repeat("0", 64)},               // zero scalar
		{fuzzPublicKey, p256Order},                             // the order itself
		{fuzzPublicKey, strings.Repeat("f", 64)},               // above the order
		{"02" + strings.Repeat("f", 64), fuzzPrivateKey},       // x beyond the field
		{"02" + strings.Repeat("0", 63) + "5", fuzzPrivateKey}, // x with no point
		{fuzzPublicKey, "zz" + fuzzPrivateKey[2:]},             // not hex
		{"", fuzzPrivateKey},
		{fuzzPublicKey, ""},
		{"", ""},
		{"0x" + fuzzPublicKey, "0x" + fuzzPrivateKey},
	} {
		f.Add(pair[0], pair[1])
	}
	body := []byte(`{"organizationId":"org-1"}`)
	f.Fuzz(func(t *testing.T, pub, priv string) {
		k, err := ParseAPIKey(pub, priv)
		if err != nil {
			msg := err.Error()
			if strings.TrimSpace(msg) == "" {
				t.Fatalf("ParseAPIKey(%q, %q): empty error message", pub, priv)
			}
			secret := strings.ToLower(strings.TrimSpace(priv))
			if len(secret) >= 16 && isHex(secret) && !strings.Contains(strings.ToLower(pub), secret) &&
				strings.Contains(strings.ToLower(msg), secret) {
				t.Fatalf("ParseAPIKey(%q, %q): error %q echoes the private key", pub, priv, msg)
			}
			return
		}
		if got, want := k.PublicKeyHex(), strings.ToLower(strings.TrimSpace(pub)); got != want {
			t.Fatalf("PublicKeyHex = %q, want %q", got, want)
		}
		if got, want := k.PrivateKeyHex(), strings.ToLower(strings.TrimSpace(priv)); got != want {
			t.Fatalf("PrivateKeyHex = %q, want %q", got, want)
		}
		again, err := ParseAPIKey(k.PublicKeyHex(), k.PrivateKeyHex())
		if err != nil || again.PublicKeyHex() != k.PublicKeyHex() || !again.priv.Equal(k.priv) {
			t.Fatalf("the canonical form of an accepted key does not parse back: %v", err)
		}
		stamp, err := k.Stamp(body)
		if err != nil {
			t.Fatalf("Stamp: %v", err)
		}
		if !verifyStampIndependently(t, stamp, body, k.PublicKeyHex()) {
			t.Fatalf("the stamp of an accepted key does not verify")
		}
	})
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
