package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// maxResponseBytes bounds what is read of one answer.
const maxResponseBytes = 32 << 20

// post sends body, stamped once, to path and decodes a 2xx answer into out.
//
// A 429, 502, 503, 504 or a transport error is retried with the identical
// bytes and stamp: the service hashes the body into an activity's
// fingerprint and answers an identical resubmission with the same activity,
// so resending never acts twice. Rebuilding the body (a new timestampMs)
// would. Any other answer is final.
func (c *Client) post(ctx context.Context, op, path string, body []byte, out any) error {
	stamp, err := c.key.Stamp(body)
	if err != nil {
		return err
	}
	url := c.endpoint(path)
	for attempt := 0; ; attempt++ {
		status, header, data, err := c.send(ctx, url, body, stamp)
		var failure error
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w", op, ctx.Err())
			}
			failure = fmt.Errorf("%s: %w", op, err)
		case status >= 200 && status <= 299:
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("%s: decoding the answer: %w", op, err)
			}
			return nil
		default:
			failure = decodeAPIError(op, status, header, data)
			if !retryableStatus(status) {
				return failure
			}
		}
		if attempt >= c.maxRetries {
			if attempt > 0 {
				return fmt.Errorf("%w (gave up after %d attempts)", failure, attempt+1)
			}
			return failure
		}
		wait, fromServer := retryAfter(header, c.now())
		if !fromServer {
			wait = c.jitter(backoff(c.retryMin, c.retryMax, attempt))
		}
		if deadline, ok := ctx.Deadline(); ok && c.now().Add(wait).After(deadline) {
			return fmt.Errorf("%w (gave up after %d attempts: the next retry, in %s, would pass the deadline)",
				failure, attempt+1, wait.Round(time.Millisecond))
		}
		c.debug(ctx, "retrying request", map[string]any{
			"operation": op, "attempt": attempt + 1, "wait": wait.String(), "error": failure.Error(),
		})
		if err := c.sleep(ctx, wait); err != nil {
			return fmt.Errorf("%w (%v while waiting to retry)", failure, err)
		}
	}
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

func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// decodeAPIError reads the {code, message, details} body; a body that is
// not that shape is kept as the message so nothing the service said is lost.
func decodeAPIError(op string, status int, header http.Header, data []byte) *APIError {
	e := &APIError{Operation: op, HTTPStatus: status, RequestID: header.Get("X-Request-Id")}
	if err := json.Unmarshal(data, &e.Status); err != nil || (e.Message == "" && e.Code == 0) {
		e.Status = Status{Message: string(bytes.TrimSpace(data))}
		if len(e.Message) > 512 {
			e.Message = e.Message[:512] + "…"
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
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

// backoff is min·2^attempt, capped at max.
func backoff(min, max time.Duration, attempt int) time.Duration {
	d := min
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d
}

// halfJitter spreads the retries of many clients over [d/2, d].
func halfJitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
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
