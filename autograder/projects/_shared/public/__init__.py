"""What more than one project's public half uses: PPO's statistics and whether a student's pieces remake the
reference's own runs (A's bar, B's rows). Like every ``public`` package, it imports only the students' checker, the
given code and itself, and the students' bundle ships it."""
