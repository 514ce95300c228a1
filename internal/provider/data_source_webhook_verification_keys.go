package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewWebhookVerificationKeysDataSource is the custody_webhook_verification_keys
// data source.
func NewWebhookVerificationKeysDataSource() datasource.DataSource {
	return &webhookVerificationKeysDataSource{dataSourceBase: dataSourceBase{typeName: "webhook_verification_keys"}}
}

// webhookVerificationKeysDataSource reads through the key set cache, which
// its own Configure sets in place of the base's: the key set is public, so
// this works with a provider configured without credentials.
type webhookVerificationKeysDataSource struct {
	dataSourceBase
	keys *client.WebhookKeyCache
}

type webhookVerificationKeysDataSourceModel struct {
	Keys []webhookVerificationKeyModel `tfsdk:"keys"`
}

type webhookVerificationKeyModel struct {
	Kid                types.String `tfsdk:"kid"`
	Kty                types.String `tfsdk:"kty"`
	Crv                types.String `tfsdk:"crv"`
	Alg                types.String `tfsdk:"alg"`
	Use                types.String `tfsdk:"use"`
	X                  types.String `tfsdk:"x"`
	SignatureAlgorithm types.String `tfsdk:"signature_algorithm"`
	SignatureVersion   types.String `tfsdk:"signature_version"`
}

func (d *webhookVerificationKeysDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads the public key set (a JWKS) whose Ed25519 keys sign the service's webhook deliveries, " +
			"for example to hand to the receiver that verifies them.\n\n" +
			"It **needs no credentials**: a provider block with only `base_url` (and no `CUSTODY_ORGANIZATION_ID`, " +
			"`CUSTODY_API_PUBLIC_KEY` or `CUSTODY_API_PRIVATE_KEY` set) is enough. The set is cached within one Terraform " +
			"command as its `Cache-Control` header allows. Receivers should refetch the set before rejecting a delivery whose " +
			"key id is unknown, since keys rotate.",
		Attributes: map[string]schema.Attribute{
			"keys": computedList("The keys, in the order the service publishes them.", map[string]schema.Attribute{
				"kid": computedString("The key id; a delivery names the key that signed it in its `X-Service-Signature-Key-Id` header."),
				"kty": computedString("The key type: `OKP`."),
				"crv": computedString("The curve: `Ed25519`."),
				"alg": computedString("The algorithm: `EdDSA`."),
				"use": computedString("The key's use: `sig` (signatures)."),
				"x":   computedString("The 32-byte public key, base64url-encoded without padding."),
				"signature_algorithm": computedString("The webhook signature algorithm (the key's `service_signature_algorithm`): " +
					"`ed25519`."),
				"signature_version": computedString("The webhook signature version (the key's `service_signature_version`): `v1`."),
			}),
		},
	}
}

func (d *webhookVerificationKeysDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.keys = keySetFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *webhookVerificationKeysDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readModel(ctx, req, resp, func(m *webhookVerificationKeysDataSourceModel, diags *diag.Diagnostics) {
		if d.notConfigured(d.keys != nil, diags) {
			return
		}
		set, err := d.keys.KeySet(ctx)
		if err != nil {
			addAPIError(diags, "Error reading webhook verification keys", "GET "+client.WebhookKeySetPath, "", err)
			return
		}
		*m = webhookVerificationKeysDataSourceModel{Keys: listOf(set.Keys, func(k client.WebhookKey) webhookVerificationKeyModel {
			return webhookVerificationKeyModel{Kid: types.StringValue(k.Kid), Kty: types.StringValue(k.Kty),
				Crv: types.StringValue(k.Crv), Alg: types.StringValue(k.Alg), Use: types.StringValue(k.Use), X: types.StringValue(k.X),
				SignatureAlgorithm: types.StringValue(k.ServiceSignatureAlgorithm), SignatureVersion: types.StringValue(k.ServiceSignatureVersion)}
		})}
	})
}
