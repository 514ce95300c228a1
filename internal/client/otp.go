package client

// EmailCustomization shapes the OTP email.
type EmailCustomization struct {
	LogoURL           string `json:"logoUrl,omitempty"`
	MagicLinkTemplate string `json:"magicLinkTemplate,omitempty"`
	TemplateVariables string `json:"templateVariables,omitempty"`
	TemplateID        string `json:"templateId,omitempty"`
}

// SmsCustomization shapes the OTP text message.
type SmsCustomization struct {
	Template string `json:"template,omitempty"`
}

// InitOtpParams are the parameters of init_otp (V3).
type InitOtpParams struct {
	OtpType                 string              `json:"otpType"` // OTP_TYPE_SMS, OTP_TYPE_EMAIL, OTP_TYPE_WHATSAPP
	Contact                 string              `json:"contact"`
	AppName                 string              `json:"appName"`
	OtpLength               *int                `json:"otpLength,omitempty"`
	Alphanumeric            *bool               `json:"alphanumeric,omitempty"`
	EmailCustomization      *EmailCustomization `json:"emailCustomization,omitempty"`
	SmsCustomization        *SmsCustomization   `json:"smsCustomization,omitempty"`
	UserIdentifier          string              `json:"userIdentifier,omitempty"`
	SendFromEmailAddress    string              `json:"sendFromEmailAddress,omitempty"`
	SendFromEmailSenderName string              `json:"sendFromEmailSenderName,omitempty"`
	ReplyToEmailAddress     string              `json:"replyToEmailAddress,omitempty"`
	ExpirationSeconds       string              `json:"expirationSeconds,omitempty"` // at most "600"
}

// InitOtpResult is the result of init_otp.
type InitOtpResult struct {
	OtpID                     string `json:"otpId"`
	OtpEncryptionTargetBundle string `json:"otpEncryptionTargetBundle"`
}

// VerifyOtpParams are the parameters of verify_otp (V2).
type VerifyOtpParams struct {
	OtpID              string `json:"otpId"`
	EncryptedOtpBundle string `json:"encryptedOtpBundle"`
	ExpirationSeconds  string `json:"expirationSeconds,omitempty"` // at most "86400"
}

// VerifyOtpResult holds the verification token (a secret JWT).
type VerifyOtpResult struct {
	VerificationToken string `json:"verificationToken"`
}
