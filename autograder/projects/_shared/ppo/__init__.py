"""PPO machinery that several projects share: the reference update with its switches, the clip-edge settlement,
the recorded runs on budgeted environments and the cases made from a seed."""
