package emulator

import (
	"regexp"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The read-only queries serve what fixtures seeded: no activity in scope
// creates MFA policies, earn vaults, positions, app or transaction statuses.
func init() {
	registerQuery(client.QueryGetMfaPolicy, []string{"userId", "mfaPolicyId"}, getMfaPolicy)
	registerQuery(client.QueryGetMfaPolicies, []string{"userId"}, getMfaPolicies)
	registerQuery(client.QueryListSupportedAssets, []string{"caip2"}, listSupportedAssets)
	registerQuery(client.QueryListEarnEnabledVaults, nil, listEarnEnabledVaults)
	registerQuery(client.QueryListEarnPositions, []string{"walletAddress"}, listEarnPositions)
	registerQuery(client.QueryGetAppStatus, []string{"appId"}, getAppStatus)
	registerQuery(client.QueryGetSendTransactionStatus, []string{"sendTransactionStatusId"}, getSendTransactionStatus)
}

// The list answers below keep an empty list as [] instead of leaving it
// out (the client's structs omit it), so that "none" is visibly an answer.
type (
	mfaPoliciesAnswer struct {
		MfaPolicies []client.MfaPolicy `json:"mfaPolicies"`
	}
	assetsAnswer struct {
		Assets []client.AssetMetadata `json:"assets"`
	}
	vaultsAnswer struct {
		EnabledVaults []client.EarnEnabledVault `json:"enabledVaults"`
	}
	positionsAnswer struct {
		Positions []client.EarnPosition `json:"positions"`
	}
)

// nonEmptyField refuses an empty string in a required request field: the
// field is present, but an empty value can name nothing.
func nonEmptyField(field, v string) *apiError {
	if strings.TrimSpace(v) == "" {
		return errInvalid("field %s must not be empty", field)
	}
	return nil
}

// mfaUser finds the user whose MFA policies are asked for.
func (s *Server) mfaUser(userID string) *apiError {
	if e := nonEmptyField("userId", userID); e != nil {
		return e
	}
	if s.st.userByID(userID) == nil {
		return errNotFound("user %s not found in organization %s", userID, s.st.Organization.ID)
	}
	return nil
}

func getMfaPolicy(s *Server, _ *caller, req *client.GetMfaPolicyRequest) (any, *apiError) {
	if e := s.mfaUser(req.UserID); e != nil {
		return nil, e
	}
	if e := nonEmptyField("mfaPolicyId", req.MfaPolicyID); e != nil {
		return nil, e
	}
	i := slices.IndexFunc(s.st.MfaPolicies[req.UserID], func(p client.MfaPolicy) bool { return p.MfaPolicyID == req.MfaPolicyID })
	if i < 0 {
		return nil, errNotFound("MFA policy %s not found for user %s", req.MfaPolicyID, req.UserID)
	}
	return client.GetMfaPolicyResponse{MfaPolicy: mfaPolicyView(s.st.MfaPolicies[req.UserID][i])}, nil
}

func getMfaPolicies(s *Server, _ *caller, req *client.GetMfaPoliciesRequest) (any, *apiError) {
	if e := s.mfaUser(req.UserID); e != nil {
		return nil, e
	}
	out := []client.MfaPolicy{}
	for _, p := range s.st.MfaPolicies[req.UserID] {
		out = append(out, mfaPolicyView(p))
	}
	return mfaPoliciesAnswer{MfaPolicies: out}, nil
}

// mfaPolicyView keeps the required lists of a policy as [] rather than
// null when a fixture left them out.
func mfaPolicyView(p client.MfaPolicy) client.MfaPolicy {
	steps := make([]client.RequiredAuthenticationMethod, len(p.RequiredAuthenticationMethods))
	for i, step := range p.RequiredAuthenticationMethods {
		steps[i] = client.RequiredAuthenticationMethod{Any: emptyIfNil(step.Any)}
	}
	p.RequiredAuthenticationMethods = steps
	return p
}

func listSupportedAssets(_ *Server, _ *caller, req *client.ListSupportedAssetsRequest) (any, *apiError) {
	chain := req.Caip2
	if canonical, ok := chainAliases[chain]; ok {
		chain = canonical
	}
	if !slices.Contains(supportedChains, chain) {
		return nil, oneOf("caip2", req.Caip2, append(slices.Clone(supportedChains), "solana:mainnet", "solana:devnet")...)
	}
	out := []client.AssetMetadata{}
	for _, a := range assetTable[chain] {
		decimals, stable := a.decimals, a.stable
		out = append(out, client.AssetMetadata{Caip19: a.caip19, Symbol: a.symbol, Decimals: &decimals,
			LogoURL: placeholderLogo(a.symbol), Name: a.name, Stable: &stable})
	}
	return assetsAnswer{Assets: out}, nil
}

// earnProviders are the providers of spec 4.2.6.
var earnProviders = []string{client.EarnProviderProtocolA, client.EarnProviderProtocolB}

// caip19Shape is a CAIP-19 asset type: chain id (namespace:reference) and
// asset (asset_namespace:asset_reference), with CAIP's character sets.
var caip19Shape = regexp.MustCompile(`^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}/[-a-z0-9]{3,8}:[-.%a-zA-Z0-9]{1,128}$`)

func listEarnEnabledVaults(s *Server, who *caller, req *client.ListEarnEnabledVaultsRequest) (any, *apiError) {
	if req.Provider != "" {
		if e := oneOf("provider", req.Provider, earnProviders...); e != nil {
			return nil, e
		}
	}
	if req.Caip19 != "" && !caip19Shape.MatchString(req.Caip19) {
		return nil, errInvalid("field caip19: %q is not a CAIP-19 asset id <namespace>:<reference>/<asset_namespace>:<asset_reference> (e.g. eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48)", req.Caip19)
	}
	out := []client.EarnEnabledVault{}
	for _, v := range s.st.EarnVaults {
		if (req.Provider != "" && v.Provider != req.Provider) || (req.Caip19 != "" && v.Caip19 != req.Caip19) {
			continue
		}
		if who.SubOrg {
			// Spec 4.2.6: the claimable fee and the fee wallet are the parent
			// organization's business; a sub-organization gets them unset.
			v.ClaimableClientFee, v.ClaimableClientFeeDisplay, v.ClientFeeWallet = "", nil, ""
		}
		out = append(out, v)
	}
	return vaultsAnswer{EnabledVaults: out}, nil
}

func listEarnPositions(s *Server, _ *caller, req *client.ListEarnPositionsRequest) (any, *apiError) {
	if e := nonEmptyField("walletAddress", req.WalletAddress); e != nil {
		return nil, e
	}
	out := []client.EarnPosition{}
	for addr, ps := range s.st.EarnPositions {
		if sameWallet(addr, req.WalletAddress) {
			out = append(out, ps...)
		}
	}
	return positionsAnswer{Positions: out}, nil
}

// sameWallet compares addresses; 0x (EVM) addresses ignore case, since
// the mixed case of EIP-55 is only a checksum. Other addresses (Solana's
// base58) are case-sensitive.
func sameWallet(a, b string) bool {
	if strings.HasPrefix(a, "0x") && strings.HasPrefix(b, "0x") {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// lookup finds the record that the required request field names: an empty
// id is refused, an unknown one is "<what> <id> not found".
func lookup[V any](s *Server, records map[string]V, field, id, what string) (V, *apiError) {
	var zero V
	if e := nonEmptyField(field, id); e != nil {
		return zero, e
	}
	v, ok := records[id]
	if !ok {
		return zero, errNotFound("%s %s not found in organization %s", what, id, s.st.Organization.ID)
	}
	return v, nil
}

func getAppStatus(s *Server, _ *caller, req *client.GetAppStatusRequest) (any, *apiError) {
	st, e := lookup(s, s.st.AppStatuses, "appId", req.AppID, "app")
	if e != nil {
		return nil, e
	}
	st.Deployments = emptyIfNil(st.Deployments) // required: [] rather than null
	return client.GetAppStatusResponse{AppStatus: st}, nil
}

func getSendTransactionStatus(s *Server, _ *caller, req *client.GetSendTransactionStatusRequest) (any, *apiError) {
	st, e := lookup(s, s.st.SendTransactionStatuses, "sendTransactionStatusId", req.SendTransactionStatusID, "send-transaction status")
	if e != nil {
		return nil, e
	}
	return st, nil
}

// emptyIfNil keeps a nil list as [] on the wire.
func emptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
