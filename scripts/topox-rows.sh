# Shared by scripts/topox-table3.sh and scripts/topox-search.sh (sourced, not run): the configurations of TOPO-X's
# Table III (Hu et al., "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML Training Parallelism") and the
# check of a --rows list.

# row_spec ROW: "N_S d_S B" (servers, ports = OCSes, Gb/s per port); d_OCS = N_S. Rows 1-4 run Table II
# configuration 1, rows 5-14 configuration 2.
row_spec() {
  case "$1" in
    1) echo "128 4 40" ;;  2) echo "128 6 40" ;;  3) echo "128 4 100" ;; 4) echo "128 6 100" ;;
    5) echo "16 4 10" ;;   6) echo "16 4 25" ;;   7) echo "16 4 40" ;;   8) echo "16 4 100" ;;  9) echo "16 4 200" ;;
    10) echo "16 8 10" ;;  11) echo "16 8 25" ;;  12) echo "16 8 40" ;;  13) echo "16 8 100" ;; 14) echo "16 8 200" ;;
  esac
}

# check_rows SCRIPT ROWS: exit 2 with one line unless ROWS lists rows of Table III (1 to 14), at least one.
check_rows() {
  local r
  for r in $2; do
    [[ "$r" =~ ^[0-9]+$ ]] && [ "$r" -ge 1 ] && [ "$r" -le 14 ] \
      || { echo "$1: --rows: '$r' is not a row of Table III (1 to 14)" >&2; exit 2; }
  done
  [ -n "$2" ] || { echo "$1: --rows needs at least one row" >&2; exit 2; }
}
