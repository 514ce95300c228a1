package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// encodeState is json.Marshal(st) (the same document, members in another
// order) that reuses the encoding of finished activities. Every change
// rewrites the whole state file, and activities, kept forever and never
// changed once finished, are most of it: re-encoding them on every write
// made the emulator's cost per request grow with its history.
func encodeState(st *state) ([]byte, error) {
	rest := *st
	rest.Activities = nil // omitted (omitempty), written below
	head, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-1]) // without its closing brace
	b.WriteString(`,"activities":{`)
	first := true
	for id, rec := range st.Activities {
		enc, err := rec.encoded()
		if err != nil {
			return nil, fmt.Errorf("activity %s: %w", id, err)
		}
		key, err := json.Marshal(id)
		if err != nil {
			return nil, err
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(key)
		b.WriteByte(':')
		b.Write(enc)
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

// encoded returns the record's JSON, cached once the activity is finished.
// The cache is keyed by what a later change would have to move (status,
// votes, updatedAt), so that a change to a finished activity, were one
// ever made, is written rather than lost.
func (r *activityRecord) encoded() ([]byte, error) {
	key := ""
	switch r.Activity.Status {
	case client.StatusCompleted, client.StatusFailed, client.StatusRejected:
		key = fmt.Sprintf("%s/%d/%v", r.Activity.Status, len(r.Activity.Votes), r.Activity.UpdatedAt)
	}
	if key != "" && key == r.encKey {
		return r.enc, nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	r.enc, r.encKey = b, key
	return b, nil
}
