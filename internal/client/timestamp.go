package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Timestamp is a point in time as the service writes it: the object
// {"seconds": "...", "nanos": "..."} (both decimal strings) in queries, or a
// plain string on submit responses. It keeps what it was given, so that it
// encodes back to the same shape.
type Timestamp struct {
	Seconds string `json:"seconds"`
	Nanos   string `json:"nanos"`
	// Text is set, and the other fields are empty, when the service sent a
	// plain string.
	Text string `json:"-"`
}

// NewTimestamp writes t in the object shape.
func NewTimestamp(t time.Time) Timestamp {
	return Timestamp{Seconds: strconv.FormatInt(t.Unix(), 10), Nanos: strconv.Itoa(t.Nanosecond())}
}

// UnmarshalJSON accepts both shapes.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*t = Timestamp{}
		return json.Unmarshal(b, &t.Text)
	}
	type plain Timestamp
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	*t = Timestamp(p)
	return nil
}

// MarshalJSON writes the shape that was read (the object by default).
func (t Timestamp) MarshalJSON() ([]byte, error) {
	if t.Text != "" {
		return json.Marshal(t.Text)
	}
	type plain Timestamp
	return json.Marshal(plain(t))
}

// IsZero reports whether nothing was set.
func (t Timestamp) IsZero() bool { return t.Seconds == "" && t.Nanos == "" && t.Text == "" }

// Time converts to time.Time (UTC). The string shape is read as RFC 3339
// or as decimal seconds since the epoch.
func (t Timestamp) Time() (time.Time, error) {
	if t.Text != "" {
		if v, err := time.Parse(time.RFC3339Nano, t.Text); err == nil {
			return v.UTC(), nil
		}
		if s, err := strconv.ParseInt(t.Text, 10, 64); err == nil {
			return time.Unix(s, 0).UTC(), nil
		}
		return time.Time{}, fmt.Errorf("timestamp %q is neither RFC 3339 nor seconds", t.Text)
	}
	s, err := strconv.ParseInt(t.Seconds, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp seconds %q: %w", t.Seconds, err)
	}
	var n int64
	if t.Nanos != "" {
		if n, err = strconv.ParseInt(t.Nanos, 10, 64); err != nil || n < 0 || n > 999999999 {
			return time.Time{}, fmt.Errorf("timestamp nanos %q out of range", t.Nanos)
		}
	}
	return time.Unix(s, n).UTC(), nil
}
