package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Each retry is logged with why, which attempt failed and how long the
// client waits; never with the body or the stamp.
func TestRetryLogNamesTheReasonAndNoSecrets(t *testing.T) {
	f := &fakeService{}
	f.answer = func(n int, _ recorded, w http.ResponseWriter) {
		switch n {
		case 1:
			writeJSON(w, 500, `{"code":13,"message":"internal","details":[]}`)
		case 2:
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, `{"code":8,"message":"slow down","details":[]}`)
		case 3:
			hangUp(t, w)
		default:
			writeJSON(w, 200, completedPolicies)
		}
	}
	logs := &logRecorder{}
	c, _ := newTestClient(t, f, logs.config)
	if _, err := c.CreatePolicies(t.Context(), onePolicy); err != nil {
		t.Fatal(err)
	}
	reqs := wantIdenticalRequests(t, f.all(), 4)
	retries := logs.retries()
	want := []struct {
		reason, wait string
		attempt      int
	}{{"HTTP 500", "10ms", 1}, {"HTTP 429", "1s", 2}, {"connection dropped (EOF)", "40ms", 3}}
	if len(retries) != len(want) {
		t.Fatalf("%d retries logged, want %d: %v", len(retries), len(want), retries)
	}
	for i, w := range want {
		r := retries[i]
		if r["reason"] != w.reason || r["wait"] != w.wait || r["attempt"] != w.attempt || r["operation"] != "create_policies" {
			t.Errorf("retry %d logged %v, want reason %q, wait %s, attempt %d", i+1, r, w.reason, w.wait, w.attempt)
		}
	}
	secrets := []string{string(reqs[0].Body), reqs[0].Header.Get(StampHeader), testKey.PrivateKeyHex(), `"policyName"`}
	for _, r := range retries {
		text := fmt.Sprint(r)
		for _, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("a retry log carries %.40q: %s", secret, text)
			}
		}
	}
}

// logRecorder is a Config.Log that keeps what it is given.
type logRecorder struct {
	mu      sync.Mutex
	entries []map[string]any
}

func (l *logRecorder) config(cfg *Config) {
	cfg.Log = func(_ context.Context, msg string, fields ...map[string]any) {
		l.mu.Lock()
		defer l.mu.Unlock()
		e := map[string]any{"msg": msg}
		for _, f := range fields {
			for k, v := range f {
				e[k] = v
			}
		}
		l.entries = append(l.entries, e)
	}
}

func (l *logRecorder) retries() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, e := range l.entries {
		if e["msg"] == "retrying request" {
			out = append(out, e)
		}
	}
	return out
}

func (l *logRecorder) reasons() []string {
	var out []string
	for _, e := range l.retries() {
		r, _ := e["reason"].(string)
		out = append(out, r)
	}
	return out
}
