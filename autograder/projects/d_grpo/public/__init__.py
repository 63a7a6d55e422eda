"""Project D's public half: what its checks run on a student's code and how they judge it, shipped in the students'
bundle and run by final grading alike. It imports only the students' checker, the given code and public packages."""
