package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// encodeCache keeps the JSON of state entries that no longer change
// between writes of the state file.
type encodeCache struct {
	// evaluations by activity id, valid while the activity has as many
	// evaluation records (records are only ever appended, one per vote).
	evaluations map[string]cachedEvaluations
	// lastSize is the size of the last document: the next buffer's size.
	lastSize int
}

type cachedEvaluations struct {
	n   int
	enc []byte
}

// encodeState is json.Marshal(st) (the same document, members in another
// order) that reuses the encoding of what has not changed since the last
// write. Every change rewrites the whole state file, and activities and
// their policy evaluations, kept forever and never changed once finished,
// are most of it: re-encoding them on every write made the emulator's cost
// per request grow with its history.
func encodeState(st *state, cache *encodeCache) ([]byte, error) {
	if cache.evaluations == nil {
		cache.evaluations = map[string]cachedEvaluations{}
	}
	rest := *st
	// Both are omitted (omitempty) and written below.
	rest.Activities, rest.PolicyEvaluations = nil, nil
	head, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(max(cache.lastSize, len(head)) + 4096) // one allocation, not a dozen
	b.Write(head[:len(head)-1])                   // without its closing brace
	b.WriteString(`,"activities":`)
	err = writeObject(&b, st.Activities, func(_ string, rec *activityRecord) ([]byte, error) { return rec.encoded() })
	if err != nil {
		return nil, err
	}
	b.WriteString(`,"policyEvaluations":`)
	err = writeObject(&b, st.PolicyEvaluations, func(id string, evals []client.PolicyEvaluationRecord) ([]byte, error) {
		if c, ok := cache.evaluations[id]; ok && c.n == len(evals) {
			return c.enc, nil
		}
		enc, err := json.Marshal(evals)
		if err == nil {
			cache.evaluations[id] = cachedEvaluations{n: len(evals), enc: enc}
		}
		return enc, err
	})
	if err != nil {
		return nil, err
	}
	b.WriteByte('}')
	cache.lastSize = b.Len()
	return b.Bytes(), nil
}

// writeObject writes m as a JSON object whose member values are the
// bytes that enc returns.
func writeObject[V any](b *bytes.Buffer, m map[string]V, enc func(string, V) ([]byte, error)) error {
	b.WriteByte('{')
	first := true
	for k, v := range m {
		val, err := enc(k, v)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		key, err := json.Marshal(k)
		if err != nil {
			return err
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return nil
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
