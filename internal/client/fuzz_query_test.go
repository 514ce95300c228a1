package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// queryTarget is one typed query method of the client.
type queryTarget struct {
	op   string
	call func(ctx context.Context, c *Client) (any, error)
	// decode is the test's oracle: does body decode as the answer type?
	decode func(body []byte) error
}

// qt is the queryTarget of a typed query method, called with req; its
// oracle decodes the body as the method's answer type.
func qt[Req, R any](op string, method func(*Client, context.Context, Req) (*R, error), req Req) queryTarget {
	return queryTarget{
		op: op,
		call: func(ctx context.Context, c *Client) (any, error) {
			r, err := method(c, ctx, req)
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
	qt("list_activities", (*Client).ListActivities, ListActivitiesRequest{}),
	qt("get_policy_evaluations", (*Client).GetPolicyEvaluations, GetPolicyEvaluationsRequest{ActivityID: "act-1"}),
	qt("get_app_status", (*Client).GetAppStatus, GetAppStatusRequest{AppID: "app-1"}),
	qt("list_supported_assets", (*Client).ListSupportedAssets, ListSupportedAssetsRequest{}),
	qt("list_earn_enabled_vaults", (*Client).ListEarnEnabledVaults, ListEarnEnabledVaultsRequest{}),
	qt("list_earn_positions", (*Client).ListEarnPositions, ListEarnPositionsRequest{}),
	qt("get_ip_allowlist", (*Client).GetIPAllowlist, GetIPAllowlistRequest{}),
	qt("get_mfa_policy", (*Client).GetMfaPolicy, GetMfaPolicyRequest{UserID: "u-1", MfaPolicyID: "m-1"}),
	qt("get_mfa_policies", (*Client).GetMfaPolicies, GetMfaPoliciesRequest{UserID: "u-1"}),
	qt("get_oauth_providers", (*Client).GetOauthProviders, GetOauthProvidersRequest{UserID: "u-1"}),
	qt("whoami", (*Client).Whoami, WhoamiRequest{}),
	qt("get_organization_configs", (*Client).GetOrganizationConfigs, GetOrganizationConfigsRequest{}),
	qt("get_policy", (*Client).GetPolicy, GetPolicyRequest{PolicyID: "p-1"}),
	qt("list_policies", (*Client).ListPolicies, ListPoliciesRequest{}),
	qt("list_private_key_tags", (*Client).ListPrivateKeyTags, ListPrivateKeyTagsRequest{}),
	qt("list_private_keys", (*Client).ListPrivateKeys, ListPrivateKeysRequest{}),
	qt("get_send_transaction_status", (*Client).GetSendTransactionStatus, GetSendTransactionStatusRequest{SendTransactionStatusID: "sts-1"}),
	qt("list_webhook_endpoints", (*Client).ListWebhookEndpoints, ListWebhookEndpointsRequest{}),
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
