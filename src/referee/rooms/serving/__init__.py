"""Serving: N worker processes on one port (:mod:`.workers`), each room in one of them
(:mod:`.affine`); a server in a child process (:mod:`.child`) and a throwaway PostgreSQL
cluster (:mod:`.pgtemp`), for tests and benchmarks."""
