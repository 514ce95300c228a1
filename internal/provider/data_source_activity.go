package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-jsontypes/jsontypes"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewActivityDataSource is the custody_activity data source.
func NewActivityDataSource() datasource.DataSource {
	return newDataSource("activity", activitySchema(), readActivity)
}

type activityDataSourceModel struct {
	ActivityID     types.String            `tfsdk:"activity_id"`
	OrganizationID types.String            `tfsdk:"organization_id"`
	Status         types.String            `tfsdk:"status"`
	Type           types.String            `tfsdk:"type"`
	Intent         jsontypes.Normalized    `tfsdk:"intent"`
	Result         jsontypes.Normalized    `tfsdk:"result"`
	Votes          []activityVoteModel     `tfsdk:"votes"`
	AppProofs      []activityAppProofModel `tfsdk:"app_proofs"`
	Fingerprint    types.String            `tfsdk:"fingerprint"`
	CanApprove     types.Bool              `tfsdk:"can_approve"`
	CanReject      types.Bool              `tfsdk:"can_reject"`
	Failure        *activityFailureModel   `tfsdk:"failure"`
	CreatedAt      timetypes.RFC3339       `tfsdk:"created_at"`
	UpdatedAt      timetypes.RFC3339       `tfsdk:"updated_at"`
}

type activityVoteModel struct {
	ID        types.String      `tfsdk:"id"`
	UserID    types.String      `tfsdk:"user_id"`
	UserName  types.String      `tfsdk:"user_name"`
	Selection types.String      `tfsdk:"selection"`
	Message   types.String      `tfsdk:"message"`
	PublicKey types.String      `tfsdk:"public_key"`
	Signature types.String      `tfsdk:"signature"`
	Scheme    types.String      `tfsdk:"scheme"`
	CreatedAt timetypes.RFC3339 `tfsdk:"created_at"`
}

type activityAppProofModel struct {
	Scheme       types.String `tfsdk:"scheme"`
	PublicKey    types.String `tfsdk:"public_key"`
	ProofPayload types.String `tfsdk:"proof_payload"`
	Signature    types.String `tfsdk:"signature"`
}

type activityFailureModel struct {
	Code        types.Int64          `tfsdk:"code"`
	Message     types.String         `tfsdk:"message"`
	DetailsJSON jsontypes.Normalized `tfsdk:"details_json"`
}

// activityIDShape checks an activity_id input at plan time; shared with
// custody_policy_evaluations. The service's ids are opaque, so only an
// empty or space-containing value is refused early.
var activityIDShape = noSpaces("an activity id as the service returns it (an activity's `id`)")

func activitySchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Reads one activity (a submitted mutation) with `get_activity`: its status, the intent it echoes, " +
			"its result, the votes cast on it and, when it failed, why. Use it to audit an activity, for example one a " +
			"resource of this provider submitted, or to find the fingerprint other users approve.\n\n" +
			"**Secrets are redacted.** An activity can carry a secret the service was given or gave back: the OIDC token of an " +
			"OAuth provider (also one set through the write-only `oidc_token_wo`), an OTP code or bundle, a key or wallet " +
			"export bundle, an import bundle, a session or verification token. Plan and state keep whatever a data source " +
			"reads, `sensitive` or not. So wherever a member named " + activityRedactedFields(false) + " (or the same name in " +
			"snake_case) appears in `intent`, `result`, a vote's `message`, an app proof's `proof_payload` or the failure's " +
			"`details_json`, at any depth and in any version of the activity type, its value is replaced by `" +
			client.Redacted + "`: every text, number and boolean in it (a null stays null, so the shape stays). The marker " +
			"is a fixed text, not a hash, which would give away a short secret such as an OTP code. A vote message that " +
			"was redacted is no longer the text its voter signed, so it can no longer be checked against its `signature`.\n\n" +
			"The fingerprint (a hash of the request body) and the signatures would give a short secret away the same way: " +
			"when an activity holds " + activityRedactedFields(true) + ", or a vote message or proof payload that is not " +
			"JSON, its `fingerprint`, every vote's `message` and `signature` and every app proof's `proof_payload` and " +
			"`signature` are `" + client.Redacted + "` too.",
		Attributes: map[string]schema.Attribute{
			"activity_id": requiredArgument("The activity's id, as shown in error messages of this provider or listed by the service.",
				activityIDShape),
			"organization_id": computedString("The organization that owns the activity."),
			"status": computedString("The activity's status, e.g. `ACTIVITY_STATUS_COMPLETED`, `ACTIVITY_STATUS_FAILED`, " +
				"`ACTIVITY_STATUS_CONSENSUS_NEEDED` or `ACTIVITY_STATUS_REJECTED`."),
			"type": computedString("The activity's type, e.g. `" + client.OpCreatePolicies.Type + "`."),
			"intent": schema.StringAttribute{Computed: true, CustomType: jsontypes.NormalizedType{},
				MarkdownDescription: "The intent as JSON text: one member named for the type (e.g. `createPoliciesIntent`) that " +
					"echoes the submitted parameters, secrets redacted (see above). Its shape varies with the type; object keys " +
					"are sorted, so the text is stable. Decode it with `jsondecode`."},
			"result": schema.StringAttribute{Computed: true, CustomType: jsontypes.NormalizedType{},
				MarkdownDescription: "The result as JSON text: members named for the type (e.g. `createPoliciesResult` with " +
					"`policyIds`), secrets redacted (see above); `{}` while the activity has not completed or when it failed. " +
					"Object keys are sorted. Decode it with `jsondecode`."},
			"votes": computedList("The approvals and rejections cast on the activity, in the order they were cast. The "+
				"requester's own approval is the first. Of the voter's user record only the id and name are kept.",
				map[string]schema.Attribute{
					"id":        computedString("The vote's id."),
					"user_id":   computedString("The id of the user who voted."),
					"user_name": computedString("The name of the user who voted (the vote's `user.userName`); null if the service omits it."),
					"selection": computedString("`VOTE_SELECTION_APPROVED` or `VOTE_SELECTION_REJECTED`."),
					"message": schema.StringAttribute{Computed: true, Sensitive: true,
						MarkdownDescription: "The message the voter signed: for the requester's vote, the request body as submitted " +
							"(JSON with `parameters`), its secrets redacted (see above). A message with nothing to redact is kept " +
							"byte for byte and can be checked against `signature`; a redacted one is written again as compact JSON " +
							"with sorted keys and can no longer be; a message that is not JSON, or of an activity that holds a short " +
							"secret, is replaced whole by `" + client.Redacted + "`. Sensitive all the same, since a body may carry " +
							"a secret in a member the provider does not know."},
					"public_key": computedString("The public key (hex) of the credential that cast the vote."),
					"signature": computedString("The voter's signature over `message`; public, not a secret. Null when the " +
						"service sends none; `" + client.Redacted + "` when the activity holds a short secret (see above)."),
					"scheme":     computedString("The signature scheme, e.g. `SIGNATURE_SCHEME_TK_API_P256`."),
					"created_at": computedTimestamp("When the vote was cast, RFC 3339 (UTC)."),
				}),
			"app_proofs": computedList("Verifiability proofs the service generated for the activity; null when it generated none.",
				map[string]schema.Attribute{
					"scheme":     computedString("The proof's signature scheme, e.g. `SIGNATURE_SCHEME_EPHEMERAL_KEY_P256`."),
					"public_key": computedString("The public key that signed the proof."),
					"proof_payload": computedString("The signed payload, as the service sends it, secrets redacted as in " +
						"`votes[*].message`."),
					"signature": computedString("The signature over `proof_payload`; `" + client.Redacted + "` when the " +
						"activity holds a short secret (see above)."),
				}),
			"fingerprint": computedString("The activity's fingerprint: what other users approve or reject it by; `" + client.Redacted +
				"` when the activity holds a short secret (see above)."),
			"can_approve": computedBool("Whether the activity can still be approved."),
			"can_reject":  computedBool("Whether the activity can still be rejected."),
			"failure": computedObject("Why the activity failed; null unless the service reports a failure (status `ACTIVITY_STATUS_FAILED`).",
				map[string]schema.Attribute{
					"code":    computedInt64("The failure's status code (gRPC numbering, e.g. `3` for an invalid argument, `5` for not found)."),
					"message": computedString("The service's explanation of the failure."),
					"details_json": schema.StringAttribute{Computed: true, CustomType: jsontypes.NormalizedType{},
						MarkdownDescription: "The failure's details as a JSON array of objects, each with an `@type` member, " +
							"secrets redacted (see above); object keys are sorted. Null when the service sends no details."},
				}),
			"created_at": computedTimestamp("When the activity was submitted, RFC 3339 (UTC)."),
			"updated_at": computedTimestamp("When the activity last changed, RFC 3339 (UTC)."),
		},
	}
}

func readActivity(ctx context.Context, d *dataSourceBase, m *activityDataSourceModel, diags *diag.Diagnostics) {
	id := m.ActivityID.ValueString()
	act, err := d.pd.client.GetActivity(ctx, client.GetActivityRequest{ActivityID: id})
	if err != nil {
		addAPIError(diags, "Error reading activity", client.QueryGetActivity, "activity "+id, err)
		return
	}
	diags.Append(activityToModel(act, m)...)
}

// activityRedactedFields names the secret fields for the docs, from the
// client's one list: all of them, or only the low-entropy ones.
func activityRedactedFields(lowEntropyOnly bool) string {
	var names []string
	for _, f := range client.SecretFields() {
		if f.LowEntropy || !lowEntropyOnly {
			names = append(names, "`"+f.Name+"`")
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// activityToModel fills every attribute but the input from act, with its
// secrets redacted (client.RedactActivity) so that none reaches plan or
// state. votes is never null (an activity without votes has an empty
// list); app_proofs and failure are null when the service sends none.
func activityToModel(act *client.Activity, m *activityDataSourceModel) diag.Diagnostics {
	var diags diag.Diagnostics
	act = client.RedactActivity(act)
	m.OrganizationID = types.StringValue(act.OrganizationID)
	m.Status, m.Type, m.Fingerprint = types.StringValue(act.Status), types.StringValue(act.Type), types.StringValue(act.Fingerprint)
	m.CanApprove, m.CanReject = types.BoolValue(act.CanApprove), types.BoolValue(act.CanReject)
	m.CreatedAt, m.UpdatedAt = timestampValue(act.CreatedAt), timestampValue(act.UpdatedAt)
	m.Intent = activityJSONAttr(&diags, "intent", act.Intent, act.Intent == nil)
	m.Result = activityJSONAttr(&diags, "result", act.Result, act.Result == nil)
	m.Votes = listOf(act.Votes, func(v client.Vote) activityVoteModel {
		return activityVoteModel{ID: types.StringValue(v.ID), UserID: types.StringValue(v.UserID),
			UserName: optionalString(v.User.UserName), Selection: types.StringValue(v.Selection), Message: types.StringValue(v.Message),
			PublicKey: types.StringValue(v.PublicKey), Signature: optionalString(v.Signature), Scheme: types.StringValue(v.Scheme),
			CreatedAt: timestampValue(v.CreatedAt)}
	})
	m.AppProofs = nil
	if act.AppProofs != nil {
		m.AppProofs = listOf(act.AppProofs, func(p client.AppProof) activityAppProofModel {
			return activityAppProofModel{Scheme: types.StringValue(p.Scheme), PublicKey: types.StringValue(p.PublicKey),
				ProofPayload: types.StringValue(p.ProofPayload), Signature: types.StringValue(p.Signature)}
		})
	}
	m.Failure = nil
	if f := act.Failure; f != nil {
		m.Failure = &activityFailureModel{Code: types.Int64Value(int64(f.Code)), Message: types.StringValue(f.Message),
			DetailsJSON: activityJSONAttr(&diags, "failure.details", f.Details, f.Details == nil)}
	}
	return diags
}

// activityJSONAttr renders v as normalized JSON text, or null when absent.
func activityJSONAttr(diags *diag.Diagnostics, what string, v any, absent bool) jsontypes.Normalized {
	if absent {
		return jsontypes.NewNormalizedNull()
	}
	text, err := activityNormalizedJSON(v)
	if err != nil {
		diags.AddError("Unexpected activity content",
			fmt.Sprintf("The activity's %s could not be written as JSON: %v. This is always a bug in the provider; please report it.", what, err))
		return jsontypes.NewNormalizedNull()
	}
	return jsontypes.NewNormalizedValue(text)
}

// activityNormalizedJSON writes v as compact JSON with the keys of every
// object sorted (json.RawMessage members would otherwise keep the service's
// order), numbers exactly as sent, and <, >, & left as they are: policy
// conditions are full of "&&", which the default encoder would turn into
// \u0026\u0026.
func activityNormalizedJSON(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
