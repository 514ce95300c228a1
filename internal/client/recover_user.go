package client

// Attestation is the WebAuthn attestation of a new authenticator.
type Attestation struct {
	CredentialID      string   `json:"credentialId"`
	ClientDataJSON    string   `json:"clientDataJson"`
	AttestationObject string   `json:"attestationObject"`
	Transports        []string `json:"transports"` // AUTHENTICATOR_TRANSPORT_...
}

// AuthenticatorParams describe the authenticator to add.
type AuthenticatorParams struct {
	AuthenticatorName string      `json:"authenticatorName"`
	Challenge         string      `json:"challenge"`
	Attestation       Attestation `json:"attestation"`
}

// RecoverUserParams are the parameters of recover_user.
type RecoverUserParams struct {
	Authenticator AuthenticatorParams `json:"authenticator"`
	UserID        string              `json:"userId"`
}

// RecoverUserResult holds the created authenticator's id.
type RecoverUserResult struct {
	AuthenticatorID []string `json:"authenticatorId"`
}
