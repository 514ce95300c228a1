package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// maxResponseBytes bounds what is read of one answer.
const maxResponseBytes = 32 << 20

// post sends body, stamped once, to path and decodes a 2xx answer into out,
// through the identity gate: once the client's identity check has failed,
// nothing more is sent and every call gets that failure; while it runs, the
// request goes out beside it and its outcome waits for the check.
func (c *Client) post(ctx context.Context, op, path string, body []byte, out any) error {
	_, err := c.postReporting(ctx, op, path, body, out, takeFirstToken)
	return err
}

// firstToken says whether a request's first attempt takes its token from
// the request budget when it is sent (a query, a poll), or has taken it
// already (a submit, before its timestampMs was set). Every retry takes
// its own.
type firstToken bool

const (
	takeFirstToken  firstToken = false
	firstTokenTaken firstToken = true
)

// postReporting is post that also says whether the body may have reached
// the service: a submit that failed after that may have acted.
func (c *Client) postReporting(ctx context.Context, op, path string, body []byte, out any, first firstToken) (mayHaveReached bool, err error) {
	if err := c.identityFailed(); err != nil {
		return false, err
	}
	reached, err := c.postRetrying(ctx, op, path, body, out, first)
	if gateErr := c.IdentityVerified(ctx); gateErr != nil {
		return reached, gateErr
	}
	return reached, err
}

// postRetrying sends body, stamped once, to path and decodes a 2xx answer
// into out.
//
// Every transient failure is retried: a 429, any 5xx, a dropped or reset
// connection and an attempt that timed out while ctx was still alive.
// Submits are retried as freely as queries because a retry resends the
// identical bytes and stamp: the service hashes the body into an activity's
// fingerprint and answers an identical resubmission with the same activity,
// so a retry after a 500 or a drop that followed a commit never acts twice.
// Rebuilding the body (a new timestampMs) would. Any other answer is final.
//
// The wait before a retry is the service's Retry-After, else a full-jitter
// exponential backoff (uniform in [0, min(retryMax, retryMin·2^n)]), so
// that many clients failed by one outage do not return in step. A
// Retry-After is honoured up to MaxRetryAfter per wait, so that a huge or
// hostile value cannot hold a call for hours; an error after such a wait
// says so. A retry that would start after ctx's deadline is not made.
//
// Each attempt takes a token from the request budget just before it is
// sent, a retry's after its wait (the first attempt's unless first says
// it is taken), so that the budget and Retry-After add up.
//
// reached reports whether any attempt may have reached the service's
// handler (see mayHaveReached): when the call fails and reached is true, a
// submit's answer is lost.
func (c *Client) postRetrying(ctx context.Context, op, path string, body []byte, out any, first firstToken) (reached bool, err error) {
	stamp, err := c.key.Stamp(body)
	if err != nil {
		return false, err
	}
	url := c.endpoint(path)
	var failure error // the last attempt's, once one failed
	cut := ""         // how the last wait was cut short, if it was
	for attempt := 1; ; attempt++ {
		if attempt > 1 || first == takeFirstToken {
			if err := c.takeToken(ctx, op); err != nil {
				if failure == nil {
					return reached, notSent(op, err)
				}
				return reached, &RetryError{Attempts: attempt - 1, Last: failure, Why: err.Error() + " while waiting for the request budget", Cause: err}
			}
		}
		status, header, data, err := c.send(ctx, url, body, stamp)
		reached = reached || mayHaveReached(status, err)
		var reason string
		switch {
		case err != nil && ctx.Err() != nil:
			// The caller's deadline or interrupt, not the service, ended it.
			if failure != nil {
				return reached, &RetryError{Attempts: attempt, Last: failure, Why: "the last was cut short: " + ctx.Err().Error(), Cause: ctx.Err()}
			}
			return reached, fmt.Errorf("%s: %w", op, ctx.Err())
		case err != nil:
			failure, reason = &NetworkError{Operation: op, Err: err}, transportReason(err)
			if reason == "" {
				return reached, failure
			}
		case status >= 200 && status <= 299:
			if out == nil {
				return reached, nil
			}
			// Unmarshal checks the whole body is JSON before it decodes
			// any of it (a page of activities is megabytes: one pass, not
			// two).
			if err := json.Unmarshal(data, out); err != nil {
				var syntax *json.SyntaxError
				if errors.As(err, &syntax) {
					// A server that is not the service, answering with a page.
					return reached, &APIError{Operation: op, HTTPStatus: status, NotService: true, RequestID: header.Get("X-Request-Id"),
						Status: Status{Message: "a body that is not JSON: " + summarizeBody(data)}}
				}
				return reached, fmt.Errorf("%s: decoding the answer: %w", op, err)
			}
			return reached, nil
		default:
			apiErr := decodeAPIError(op, status, header, data)
			if failure = apiErr; apiErr.NotService || !retryableStatus(status) {
				return reached, failure
			}
			reason = fmt.Sprintf("HTTP %d", status)
		}
		if attempt > c.maxRetries || !retriesAllowed(ctx) {
			return reached, &RetryError{Attempts: attempt, Last: failure, Why: cut}
		}
		wait, fromServer := retryAfter(header, c.now())
		cut = ""
		switch {
		case !fromServer:
			wait = c.jitter(backoff(c.retryMin, c.retryMax, attempt-1))
		case wait > MaxRetryAfter:
			cut = fmt.Sprintf("the service's Retry-After asked for %s, and the last wait was cut to %s, the most the client waits", wait, MaxRetryAfter)
			wait = MaxRetryAfter
		}
		if deadline, ok := ctx.Deadline(); ok && c.now().Add(wait).After(deadline) {
			why := fmt.Sprintf("the next retry, in %s, would pass the deadline", wait.Round(time.Millisecond))
			if cut != "" {
				why += " (" + cut + ")"
			}
			return reached, &RetryError{Attempts: attempt, Last: failure, Why: why}
		}
		// Neither the body nor the stamp is logged: a body may carry secrets.
		c.debug(ctx, "retrying request", map[string]any{
			"operation": op, "attempt": attempt, "max_attempts": c.maxRetries + 1, "reason": reason,
			"wait": wait.String(), "retry_after": fromServer, "error": failure.Error(),
		})
		if err := c.sleep(ctx, wait); err != nil {
			return reached, &RetryError{Attempts: attempt, Last: failure, Why: err.Error() + " while waiting to retry", Cause: err}
		}
	}
}

func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return strconv.Itoa(n) + " attempts"
}

// send makes one attempt. A body that cannot be read in full is a
// transport error, so it is retried like a dropped connection.
func (c *Client) send(ctx context.Context, url string, body []byte, stamp string) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.ua)
	req.Header.Set(StampHeader, stamp)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading the answer: %w", err)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// mayHaveReached tells whether one attempt, which got status or failed
// with err, may have reached the service's handler, so that it may have
// acted: any 5xx (the service, or a gateway in front of it, may have
// passed it on before failing), and a connection that failed after it was
// made (dropped, reset, timed out). A 2xx did reach it; a 429 or another
// 4xx is an answer that it did not act. A connection that was never made
// (refused, a name that does not resolve, a failed TLS handshake) carried
// nothing.
func mayHaveReached(status int, err error) bool {
	if err == nil {
		return status >= 500 || (status >= 200 && status <= 299)
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dnsErr), isTLSFailure(err):
		return false
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return false
	}
	return true
}

// retryableStatus: a 429 asks for a retry, and a 5xx is the service failing
// transiently, whether or not it committed first (the retry is deduplicated).
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || (code >= 500 && code <= 599)
}

// transportReason names a failed attempt for the retry log, or returns ""
// for a failure that another attempt cannot cure: a certificate the client
// does not trust stays untrusted. Every other transport error is retried,
// since a refused connection or a failed name lookup is what a restarting
// service or network looks like.
func transportReason(err error) string {
	var netErr net.Error
	switch {
	case isTLSFailure(err):
		// A certificate stays untrusted, and a plain-http port stays
		// plain: "cannot connect securely", once.
		return ""
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection dropped (EOF)"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	}
	return "transport error"
}

// decodeAPIError reads the {code, message, details} body. A body that is
// not that shape is kept, summarised, as the message, and marks an answer
// that is not the service's (notTheService).
func decodeAPIError(op string, status int, header http.Header, data []byte) *APIError {
	e := &APIError{Operation: op, HTTPStatus: status, RequestID: header.Get("X-Request-Id")}
	decodeErr := json.Unmarshal(data, &e.Status)
	if decodeErr != nil || (e.Message == "" && e.Code == 0) {
		raw := bytes.TrimSpace(data)
		if len(raw) > 0 && !json.Valid(raw) {
			e.Status = Status{Message: summarizeBody(raw)}
		} else {
			e.Status = Status{Message: truncateUTF8(string(raw), maxRawMessageBytes)}
		}
	}
	e.NotService = notTheService(status, data, decodeErr == nil)
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}

// notTheService tells an answer that the custody service would not give,
// so that the client neither retries it nor calls it "unavailable": 405
// and 501 (nothing serves this path or method), and a body that is not
// JSON on any status but those that proxies send in front of a service
// that is down or busy (502, 503, 504, and 429, which is a rate limit
// whoever sends it). An empty body is left to its status.
func notTheService(status int, data []byte, isJSON bool) bool {
	switch status {
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return true
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		return false
	}
	return !isJSON && len(bytes.TrimSpace(data)) > 0
}

// maxBodySummary bounds, in characters, what is quoted of a body that is
// not the service's.
const maxBodySummary = 200

// summarizeBody is a body that is not JSON in a line: an HTML page's
// title, else its first line that is not blank, at most maxBodySummary
// characters. A whole page in a diagnostic is noise.
func summarizeBody(data []byte) string {
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	line := ""
	if m := htmlTitle.FindStringSubmatch(text); m != nil {
		line = "a page titled " + strconv.Quote(strings.Join(strings.Fields(html.UnescapeString(m[1])), " "))
	} else {
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				line = l
				break
			}
		}
	}
	if r := []rune(line); len(r) > maxBodySummary {
		line = string(r[:maxBodySummary]) + "…"
	}
	return line
}

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// maxRawMessageBytes bounds a body that is not the service's error shape
// when it is kept as the message.
const maxRawMessageBytes = 512

// truncateUTF8 cuts s to at most n bytes, on a character boundary, and
// marks the cut: a cut inside a character would carry invalid UTF-8 into
// Terraform's diagnostics. Bytes that are not UTF-8 at all become U+FFFD.
func truncateUTF8(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// retryAfter reads Retry-After as seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}

// backoff is lo·2^attempt, capped at hi.
func backoff(lo, hi time.Duration, attempt int) time.Duration {
	d := lo
	for i := 0; i < attempt && d < hi; i++ {
		if d > hi/2 {
			return hi // and no overflow on the way
		}
		d *= 2
	}
	return min(d, hi)
}

// fullJitter picks a wait uniformly in [0, d]: spreading retries over the
// whole interval, not only its upper half, is what keeps the clients of one
// outage from returning together.
func fullJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

var errNoResult = errors.New("completed without its result")
