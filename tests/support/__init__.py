"""What the tests share and the benchmarks may reuse: planted bugs, graded submissions, the students' bundle, the
synthetic class and the proof-of-learning cheats. Benchmarks import from here; nothing here imports a benchmark."""
