# Import blocks for every object of the organization: write them to a file
# with `terraform output -raw import_blocks > imports.tf`.
data "custody_import_blocks" "all" {}

output "import_blocks" {
  value = data.custody_import_blocks.all.hcl
}

# The exclusive resources that declare each collection found whole: write
# them with `terraform output -raw exclusive_blocks > exclusive.tf` once
# `terraform plan -generate-config-out=generated.tf` has written the
# resources their sets reference.
output "exclusive_blocks" {
  value = data.custody_import_blocks.all.exclusive_hcl
}

# Only policies and tags, leaving out the policy that lets Terraform act.
data "custody_import_blocks" "policies" {
  resource_types = ["custody_policy", "custody_private_key_tag"]
  exclude_ids    = ["<id of the policy that lets Terraform act>"]
}
