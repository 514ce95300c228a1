package policyset

import "testing"

func TestDescribeActivity(t *testing.T) {
	for _, tc := range []struct{ typ, kind, resource, action string }{
		// Documented (reference §8.3, §8.4).
		{"ACTIVITY_TYPE_CREATE_POLICIES", "CREATE_POLICIES", "POLICY", "CREATE"},
		{"ACTIVITY_TYPE_UPDATE_POLICY_V2", "UPDATE_POLICY", "POLICY", "UPDATE"},
		{"ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS", "DELETE_PRIVATE_KEY_TAGS", "PRIVATE_KEY", "DELETE"},
		{"ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", "CREATE_OAUTH_PROVIDERS", "CREDENTIAL", "CREATE"},
		{"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "SIGN_RAW_PAYLOAD", "PRIVATE_KEY", "SIGN"},
		{"ACTIVITY_TYPE_INIT_OTP_V3", "INIT_OTP", "OTP", "CREATE"},
		// Undocumented: derived from the name.
		{"ACTIVITY_TYPE_SET_IP_ALLOWLIST", "SET_IP_ALLOWLIST", "IP_ALLOWLIST", "UPDATE"},
		{"ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST", "REMOVE_IP_ALLOWLIST", "IP_ALLOWLIST", "DELETE"},
		{"ACTIVITY_TYPE_RECOVER_USER", "RECOVER_USER", "USER", "RECOVER"},
		// Governed by the root quorum only: no kind.
		{"ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", "", "ORGANIZATION", "UPDATE"},
	} {
		got := DescribeActivity(tc.typ)
		if got.Kind != tc.kind || got.Resource != tc.resource || got.Action != tc.action {
			t.Errorf("%s: %+v, want kind %s resource %s action %s", tc.typ, got, tc.kind, tc.resource, tc.action)
		}
	}
}
