package provider

import (
	"context"
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

// The provider block's batching settings, with their variables.
const (
	envBatchingEnabled   = "CUSTODY_BATCHING_ENABLED"
	envBatchingSendAfter = "CUSTODY_BATCHING_SEND_AFTER"
)

// batchingEnvs names the variable of each batching setting (settingEnv).
var batchingEnvs = map[string]string{"batching.enabled": envBatchingEnabled, "batching.send_after": envBatchingSendAfter}

// batchingModel is the provider block's batching object.
type batchingModel struct {
	Enabled   types.Bool           `tfsdk:"enabled"`
	SendAfter timetypes.GoDuration `tfsdk:"send_after"`
}

func batchingAttribute() schema.Attribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "How creates and deletes that Terraform runs at the same time go out together as one activity " +
			"(one approval) where the service takes several objects at once: policy creates (`" + client.OpCreatePolicies.Type +
			"`) and deletes (`" + client.OpDeletePolicies.Type + "`), the OAuth providers of one user (`" + client.OpCreateOauthProviders.Type +
			"`, `" + client.OpDeleteOauthProviders.Type + "`) and private key tag deletes (`" + client.OpDeletePrivateKeyTags.Type +
			"`). Updates have no batch form in the service and stay one activity each. See the provider documentation's section " +
			"on batching.",
		Attributes: map[string]schema.Attribute{
			"enabled": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Whether to batch. Unset, an operation is batched unless the provider is sure that its " +
					"user may make it without approvals (see the provider documentation's section on batching), since then a batch " +
					"saves no approval and only makes each wave wait for its one answer. `true` batches every operation; `false` " +
					"none: every create and delete is its own activity. Falls back to `" + envBatchingEnabled + "` (`true` or `false`).",
			},
			"send_after": schema.StringAttribute{
				Optional:   true,
				CustomType: timetypes.GoDurationType{},
				Validators: []validator.String{positiveDuration("batching.send_after")},
				MarkdownDescription: "The longest an operation waits for others to join its batch, a Go duration (default `" +
					submit.DefaultSendAfter.String() + "`). A batch goes out sooner: once it is as large as the largest batch of " +
					"its kind (Terraform's wave is full), or when nothing new has joined for a twentieth of `send_after` (" +
					(submit.DefaultSendAfter / submit.QuietShare).String() + " at the default). Raise it if batches come out smaller than " +
					"`-parallelism` on a loaded machine. Falls back to `" + envBatchingSendAfter + "`.",
			},
		},
	}
}

// batchingSettings reads the batching object, each attribute falling back
// to its variable, and returns the settings of the batcher to use, nil
// when batching is off. Set true, batching is always on; unset, it is on
// where it can save an approval (submit.AloneJudge).
func batchingSettings(ctx context.Context, v types.Object, diags *diag.Diagnostics) *submit.Settings {
	var m batchingModel
	if v.IsUnknown() {
		diags.AddAttributeError(path.Root("batching"), "Unknown batching",
			"The provider cannot be configured with unknown batching settings; set them to values known at plan time.")
		return nil
	}
	if !v.IsNull() {
		diags.Append(v.As(ctx, &m, basetypes.ObjectAsOptions{})...)
		if diags.HasError() {
			return nil
		}
	}
	enabledText := settingValue(m.Enabled, func() string { return strconv.FormatBool(m.Enabled.ValueBool()) }, envBatchingEnabled)
	enabled, why := parseBoolSetting("batching.enabled", enabledText)
	if why != "" {
		diags.AddAttributeError(path.Root("batching").AtName("enabled"), "Invalid batching.enabled", why)
		return nil
	}
	sendAfterText := settingValue(m.SendAfter, m.SendAfter.ValueString, envBatchingSendAfter)
	sendAfter, why := parseDurationSetting("batching.send_after", "500ms", sendAfterText, submit.DefaultSendAfter)
	if why != "" {
		diags.AddAttributeError(path.Root("batching").AtName("send_after"), "Invalid batching.send_after", why)
		return nil
	}
	if enabledText != "" && !enabled { // on unless set off
		return nil
	}
	return &submit.Settings{SendAfter: sendAfter, Always: enabledText != ""}
}

// settingValue is a setting's text: v's when set, else the variable's.
func settingValue(v attr.Value, text func() string, env string) string {
	if !v.IsNull() && !v.IsUnknown() {
		return strings.TrimSpace(text())
	}
	return strings.TrimSpace(os.Getenv(env))
}
