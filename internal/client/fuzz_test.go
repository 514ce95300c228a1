package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
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
