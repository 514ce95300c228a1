package client

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

const notFoundPage = "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>501 Not\n Implemented</title>\n</head><body>" +
	"<h1>Not Implemented</h1><p>POST to /public/v1/query/whoami not supported.<br />\n</p>\n" + "</body></html>\n"

// An answer the custody service would not give (405, 501, a body that is
// not JSON on a status a proxy does not send for a busy service) is said
// at once, summarised, and never retried: asking again cannot change what
// the base URL points at.
func TestNotTheServiceIsNotRetried(t *testing.T) {
	for name, answer := range map[string]func(http.ResponseWriter){
		"501 with an HTML page": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(501)
			_, _ = w.Write([]byte(notFoundPage))
		},
		"501 with JSON":  func(w http.ResponseWriter) { writeJSON(w, 501, `{"code":12,"message":"unimplemented","details":[]}`) },
		"405 plain text": func(w http.ResponseWriter) { w.WriteHeader(405); _, _ = w.Write([]byte("Method Not Allowed\n")) },
		"500 HTML": func(w http.ResponseWriter) {
			w.WriteHeader(500)
			_, _ = w.Write([]byte("<html><title>Oops</title></html>"))
		},
		"404 HTML": func(w http.ResponseWriter) { w.WriteHeader(404); _, _ = w.Write([]byte(notFoundPage)) },
		"200 HTML": func(w http.ResponseWriter) { w.WriteHeader(200); _, _ = w.Write([]byte(notFoundPage)) },
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { answer(w) }}
			c, s := newTestClient(t, f)
			_, err := c.Whoami(t.Context(), WhoamiRequest{})
			var apiErr *APIError
			if !errors.As(err, &apiErr) || !apiErr.NotService || Diagnose(err).Class != ClassNotService {
				t.Fatalf("error = %v (%#v), want an answer that is not the service's", err, apiErr)
			}
			if len(f.all()) != 1 || len(s.all()) != 0 {
				t.Errorf("%d requests, waits %v: want one request, no retry", len(f.all()), s.all())
			}
			if strings.Contains(apiErr.Message, "<") || utf8.RuneCountInString(apiErr.Message) > maxBodySummary+len("a body that is not JSON: ")+1 {
				t.Errorf("message %q should summarise the body", apiErr.Message)
			}
		})
	}
}

// 502, 503 and 504 stay transient with an HTML page (proxies send them in
// front of a service that is down), and so does a 429 whoever sends it.
func TestProxyPagesStayTransient(t *testing.T) {
	for _, status := range []int{429, 502, 503, 504} {
		f := &fakeService{answer: func(n int, _ recorded, w http.ResponseWriter) {
			if n == 1 {
				w.WriteHeader(status)
				_, _ = w.Write([]byte("<html><title>busy</title></html>"))
				return
			}
			writeJSON(w, 200, `{"organizationId":"o","organizationName":"n","userId":"u","username":"x"}`)
		}}
		c, _ := newTestClient(t, f)
		if _, err := c.Whoami(t.Context(), WhoamiRequest{}); err != nil || len(f.all()) != 2 {
			t.Errorf("%d with a page: %v after %d requests, want a retry that succeeds", status, err, len(f.all()))
		}
	}
}

func TestSummarizeBody(t *testing.T) {
	for body, want := range map[string]string{
		notFoundPage:                `a page titled "501 Not Implemented"`,
		"\n\n  Bad gateway  \nmore": "Bad gateway",
		strings.Repeat("é", 300):    strings.Repeat("é", maxBodySummary) + "…",
		"<title>a &amp; b</title>":  `a page titled "a & b"`,
		"\xff\xfe not UTF-8":        "\uFFFD not UTF-8",
	} {
		if got := summarizeBody([]byte(body)); got != want {
			t.Errorf("summarizeBody(%.40q) = %q, want %q", body, got, want)
		}
	}
}

// https:// to a plain-http port is a TLS failure ("cannot connect
// securely"), made once: another attempt meets the same port.
func TestHTTPSToPlainHTTPIsNotRetried(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	f := &fakeService{}
	c, s := newTestClient(t, f, func(cfg *Config) { cfg.BaseURL = strings.Replace(plain.URL, "http://", "https://", 1) })
	_, err := c.Whoami(t.Context(), WhoamiRequest{})
	d := Diagnose(err)
	if d.Class != ClassNetwork || !d.TLS || len(s.all()) != 0 || strings.Contains(err.Error(), "gave up") {
		t.Fatalf("error = %v (class %v, TLS %v), waits %v: want one TLS failure, not retried", err, d.Class, d.TLS, s.all())
	}
}
