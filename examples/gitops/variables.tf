variable "terraform_runner_cidrs" {
  description = <<-EOT
    The addresses Terraform calls the service from (the egress addresses of
    your CI runners), as CIDR blocks. The IP allowlist always keeps them:
    leaving them out would lock Terraform out of the organization, and then
    it could not even remove the allowlist again.
  EOT
  type        = list(string)

  validation {
    condition     = length(var.terraform_runner_cidrs) > 0
    error_message = "List at least one CIDR block that Terraform runs from, or the allowlist locks Terraform out."
  }
  validation {
    condition     = alltrue([for c in var.terraform_runner_cidrs : can(cidrhost(c, 0))])
    error_message = "Each runner address must be a CIDR block, such as 198.51.100.7/32."
  }
  validation {
    condition     = alltrue([for c in var.terraform_runner_cidrs : !contains(["0.0.0.0/0", "::/0"], c)])
    error_message = "0.0.0.0/0 and ::/0 admit every address: that is no allowlist. Give the runners' own addresses."
  }
}

variable "office_networks" {
  description = "Other networks that may call the service, CIDR block => label (people's offices, the VPN)."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for c in keys(var.office_networks) : can(cidrhost(c, 0))])
    error_message = "Each key of office_networks must be a CIDR block, such as 203.0.113.0/24."
  }
}

variable "signing_approvals" {
  description = "How many people approve a signature with any private key (four eyes: at least 2)."
  type        = number
  default     = 2

  validation {
    condition     = var.signing_approvals >= 2 && floor(var.signing_approvals) == var.signing_approvals
    error_message = "signing_approvals must be a whole number of at least 2: one approver is no control."
  }
}

variable "security_webhook_url" {
  description = "The HTTPS endpoint that receives failed and rejected activities (your alerting pipeline)."
  type        = string

  validation {
    condition     = startswith(var.security_webhook_url, "https://")
    error_message = "security_webhook_url must be an https:// URL: the service delivers only over HTTPS."
  }
}

variable "policies_managed_elsewhere" {
  description = <<-EOT
    Ids of the policies that are meant to live outside this configuration,
    such as the root quorum's grant that lets Terraform act (README.md, "Set
    up the real organization"). They go into custody_policies_exclusive's
    policy_ids as literal ids: every other policy of the organization that
    this configuration does not manage is drift, which a plan shows as a
    removal and an apply removes. When Terraform runs as a user who is not
    root, as the README sets it up, the grant's id is required here: the
    plan would otherwise remove the grant, which the provider refuses, as
    it would lock Terraform out. The default (none) is for the emulator,
    where Terraform runs as a root user and no grant exists.
  EOT
  type        = list(string)
  default     = []
}
