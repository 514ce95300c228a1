package policylang

import "testing"

// eventTypes are the webhook event types (the provider's
// webhookEventTypes), as a candidate list of another family of names.
var eventTypes = []string{"ACTIVITY_UPDATES", "BALANCE_CONFIRMED_UPDATES", "BALANCE_FINALIZED_UPDATES", "SEND_TRANSACTION_STATUS_UPDATES"}

func TestClosest(t *testing.T) {
	tests := []struct {
		name, word string
		candidates []string // nil for the catalogue's activity types
		want       string
	}{
		// Issue 33: a prefix of a real type suggested ACTIVITY_TYPE_INIT_OTP
		// (the nearest by edit distance); the newest version of the type it
		// starts is meant.
		{"activity type prefix", "ACTIVITY_TYPE_SIGN_RAW", nil, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"},
		{"activity type longest shared prefix", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V9", nil, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"},
		{"activity type typo", "ACTIVITY_TYPE_CREATE_POLICES", nil, "ACTIVITY_TYPE_CREATE_POLICIES"},
		{"only the family prefix", "ACTIVITY_TYPE_", nil, ""},
		{"nothing alike", "ACTIVITY_TYPE_ZZZZZZZZZZZZZZZZZZZZ", nil, ""},
		{"event type prefix", "BALANCE_FIN", eventTypes, "BALANCE_FINALIZED_UPDATES"},
		{"event type shared prefix", "SEND_TRANSACTION_UPDATES", eventTypes, "SEND_TRANSACTION_STATUS_UPDATES"},
		{"event type too short to mean something", "BA", eventTypes, ""},
		{"keyword prefix", "priv", keywordsOf(FieldCondition), "private_key"},
		{"keyword typo", "activty", keywordsOf(FieldCondition), "activity"},
		{"keyword itself", "activity", []string{"activity"}, ""},
		{"a longer word", "SIGNING", []string{"SIGN", "EXPORT", "DELETE"}, "SIGN"},
		{"case ignored", "Timestmp", []string{"Timestamp", "CronSpan"}, "Timestamp"},
		{"no candidates", "x", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			if tt.candidates == nil && tt.word != "x" {
				got = ClosestActivityType(tt.word)
			} else {
				got = Closest(tt.word, tt.candidates)
			}
			if got != tt.want {
				t.Errorf("closest to %q = %q, want %q", tt.word, got, tt.want)
			}
		})
	}
}
