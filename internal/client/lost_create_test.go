package client

import "testing"

// A placeholder id reads back as the request it stands for, the
// position included, and no object's id reads as a placeholder.
func TestPlaceholderIDRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		sub Submission
		pos int
	}{
		{Submission{Type: OpCreatePolicies.Type, TimestampMs: "1700000000000", BodySHA256: "ab12"}, 3},
		{Submission{Type: OpCreatePolicies.Type, ActivityID: "act-1-2"}, 0},
	} {
		id := PlaceholderID(tc.sub, tc.pos)
		sub, pos, ok := SubmissionOf(tc.sub.Type, id)
		if !ok || sub != tc.sub || pos != tc.pos {
			t.Errorf("%s reads back as %+v at %d (%v), want %+v at %d", id, sub, pos, ok, tc.sub, tc.pos)
		}
	}
	for _, id := range []string{"p-123", LostCreateIDPrefix + "x-1-2", LostCreateIDPrefix + "-1-1-2"} {
		if _, _, ok := SubmissionOf(OpCreatePolicies.Type, id); ok {
			t.Errorf("%q read as a placeholder", id)
		}
	}
}
