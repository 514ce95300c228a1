# The active earn positions of a treasury wallet.
data "custody_earn_positions" "treasury" {
  wallet_address = "0xe07ca4262d303f9b5ecf9d970bbbbfe06129621a"
}

# Current value (raw units of the asset, net of the wrapper fee) and its
# display value in US dollars, by wrapper.
output "treasury_positions" {
  value = {
    for p in data.custody_earn_positions.treasury.positions : p.wrapper_address => {
      current_value = p.current_value
      usd           = try(p.display.current_value_usd, null)
    }
  }
}
