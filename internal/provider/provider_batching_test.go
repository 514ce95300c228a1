package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/submit"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// batchingObject is the batching attribute with the given values (nil:
// null).
func batchingObject(enabled *bool, sendAfter *string) types.Object {
	e, s := types.BoolNull(), timetypes.NewGoDurationNull()
	if enabled != nil {
		e = types.BoolValue(*enabled)
	}
	if sendAfter != nil {
		s = timetypes.NewGoDurationValueFromStringMust(*sendAfter)
	}
	return types.ObjectValueMust(batchingAttrTypes(),
		map[string]attr.Value{"enabled": e, "send_after": s})
}

// TestBatchingSettings: batching is on by default with send_after 500ms,
// where it saves approvals (not always); set true, it is always on; the
// block's values win over the variables, which fill in what the block
// leaves out; a wrong value names the setting and its variable.
func TestBatchingSettings(t *testing.T) {
	off, on, long := false, true, "4s"
	for _, tc := range []struct {
		name      string
		block     types.Object
		env       map[string]string
		on        bool
		always    bool
		sendAfter time.Duration
		problem   string
	}{
		{name: "nothing set", block: types.ObjectNull(batchingAttrTypes()), on: true, sendAfter: submit.DefaultSendAfter},
		{name: "off in the block", block: batchingObject(&off, nil), on: false},
		{name: "off in the environment", block: types.ObjectNull(batchingAttrTypes()), env: map[string]string{envBatchingEnabled: "false"}, on: false},
		{name: "the block wins", block: batchingObject(&on, &long), env: map[string]string{envBatchingEnabled: "false", envBatchingSendAfter: "1s"},
			on: true, always: true, sendAfter: 4 * time.Second},
		{name: "on in the environment", block: types.ObjectNull(batchingAttrTypes()), env: map[string]string{envBatchingEnabled: "true"},
			on: true, always: true, sendAfter: submit.DefaultSendAfter},
		{name: "send_after from the environment", block: batchingObject(nil, nil), env: map[string]string{envBatchingSendAfter: "2s"},
			on: true, sendAfter: 2 * time.Second},
		{name: "enabled not a bool", block: types.ObjectNull(batchingAttrTypes()), env: map[string]string{envBatchingEnabled: "sometimes"},
			problem: `batching.enabled (or CUSTODY_BATCHING_ENABLED) must be true or false, got "sometimes"`},
		{name: "send_after not positive", block: types.ObjectNull(batchingAttrTypes()), env: map[string]string{envBatchingSendAfter: "0s"},
			problem: `batching.send_after (or CUSTODY_BATCHING_SEND_AFTER) must be a positive duration such as "500ms", got "0s"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envBatchingEnabled, tc.env[envBatchingEnabled])
			t.Setenv(envBatchingSendAfter, tc.env[envBatchingSendAfter])
			var diags diag.Diagnostics
			g := batchingSettings(context.Background(), tc.block, &diags)
			if tc.problem != "" {
				if !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail(), tc.problem) {
					t.Fatalf("diagnostics %v, want %q", diags, tc.problem)
				}
				return
			}
			if diags.HasError() || (g != nil) != tc.on {
				t.Fatalf("batcher %v, diagnostics %v; want batching on = %v", g, diags, tc.on)
			}
			if g != nil && g.Always != tc.always {
				t.Fatalf("batching always = %v, want %v", g.Always, tc.always)
			}
			if g != nil && g.SendAfter != tc.sendAfter {
				t.Fatalf("send_after %v, want %v", g.SendAfter, tc.sendAfter)
			}
		})
	}
}

func batchingAttrTypes() map[string]attr.Type {
	return map[string]attr.Type{"enabled": types.BoolType, "send_after": timetypes.GoDurationType{}}
}
