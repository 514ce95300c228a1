package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
)

var lostAnswerParams = CreatePoliciesParams{Policies: []PolicyParams{{PolicyName: "p", Effect: EffectAllow}}}

// TestWhenASubmitsOutcomeIsUnknown: a submit is reported as possibly done
// (*LostAnswerError, naming the exact body sent) exactly when some
// attempt may have reached the service and no answer settled it.
func TestWhenASubmitsOutcomeIsUnknown(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []int // per attempt; the last repeats
		unknown bool
	}{
		{"5xx on every attempt", []int{503}, true},
		{"500 after which the retries are rate limited", []int{500, 429}, true},
		{"rate limited on every attempt", []int{429}, false},
		{"refused as invalid", []int{400}, false},
		// The 500 may have come after a commit: the 400 to the retry
		// (a timestamp gone stale, say) proves nothing of it.
		{"a 500, then refused as invalid", []int{500, 400}, true},
		{"a 500, then refused as stale after a long wait", []int{500, 500, 400}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeService{answer: func(n int, _ recorded, w http.ResponseWriter) {
				status := tc.answers[min(n, len(tc.answers))-1]
				writeJSON(w, status, `{"code":14,"message":"no"}`)
			}}
			c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Retries = RetryUpTo(2) })
			_, err := c.CreatePolicies(context.Background(), lostAnswerParams)
			var lost *LostAnswerError
			if errors.As(err, &lost) != tc.unknown {
				t.Fatalf("error %v: lost answer = %v, want %v", err, !tc.unknown, tc.unknown)
			}
			if !tc.unknown {
				return
			}
			body := f.all()[0].Body
			var env Envelope
			if err := json.Unmarshal(body, &env); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(body)
			want := Submission{Type: OpCreatePolicies.Type, BodySHA256: hex.EncodeToString(sum[:]), TimestampMs: env.TimestampMs}
			if lost.Submission != want {
				t.Errorf("submission %+v, want %+v (the body that was sent)", lost.Submission, want)
			}
		})
	}
}

// TestARefusedConnectionCarriedNothing: a service that cannot be reached at
// all never saw the body, so the outcome is known: nothing was done.
func TestARefusedConnectionCarriedNothing(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	c, err := New(Config{BaseURL: "http://" + addr, OrganizationID: "org-1", APIPublicKey: testKey.PublicKeyHex(),
		APIPrivateKey: testKey.PrivateKeyHex(), Retries: RetryUpTo(1)})
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = (&sleeps{}).sleep
	_, err = c.CreatePolicies(context.Background(), lostAnswerParams)
	var lost *LostAnswerError
	if err == nil || errors.As(err, &lost) {
		t.Fatalf("error %v: want a plain failure, not a lost answer", err)
	}
}

// TestAnActivityWhosePollsFailIsNamed: the submit was answered (the
// activity is running) and then every poll failed: the answer is lost,
// and the submission names the activity, which FindSubmission reads.
func TestAnActivityWhosePollsFailIsNamed(t *testing.T) {
	var back atomic.Bool
	f := &fakeService{answer: func(_ int, r recorded, w http.ResponseWriter) {
		switch {
		case r.Path == "/public/v1/submit/create_policies":
			writeJSON(w, 200, activityJSON(StatusPending, true))
		case !back.Load():
			writeJSON(w, 503, `{"code":14,"message":"down"}`)
		default:
			writeJSON(w, 200, activityJSON(StatusCompleted, false))
		}
	}}
	c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Retries = RetryUpTo(1) })
	_, err := c.CreatePolicies(context.Background(), lostAnswerParams)
	var lost *LostAnswerError
	if !errors.As(err, &lost) || lost.Submission.ActivityID != "act-9" {
		t.Fatalf("error %v: want a lost answer naming act-9", err)
	}
	back.Store(true)
	act, err := c.FindSubmission(context.Background(), lost.Submission)
	if err != nil || act == nil || act.Status != StatusCompleted {
		t.Fatalf("FindSubmission: %+v, %v", act, err)
	}
}
