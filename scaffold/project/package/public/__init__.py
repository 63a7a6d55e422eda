"""Project Z's public half: what its object-input check runs on a student's code and how it judges it. It imports only
the students' checker, the given code and itself, so the students' bundle ships a copy of it."""
