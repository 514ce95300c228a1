package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

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
			if checkRecordAnswer(t, "get_activity", pollBody, act, err) {
				checkTimestamps(t, act)
			}
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
			checkRecordAnswer(t, "approve_activity", submitBody, act, err)
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

// checkRecordAnswer checks a call of op whose answer is the activity record
// itself: a valid record must come back exactly as it reads, anything else
// must be refused with a clear error. It reports whether body was valid.
func checkRecordAnswer(t *testing.T, op string, body []byte, act *Activity, err error) bool {
	t.Helper()
	want, valid := decodeActivityRecord(body)
	if !valid {
		if err == nil {
			t.Fatalf("%s accepted %q as %+v", op, body, act)
		}
		checkClearError(t, err, op)
		return false
	}
	if err != nil {
		t.Fatalf("%s refused a valid record %q: %v", op, body, err)
	}
	if !reflect.DeepEqual(act, want) {
		t.Fatalf("%s decoded %q as %+v, want %+v", op, body, act, want)
	}
	return true
}
