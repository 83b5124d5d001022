# Sourced by the alternating-rounds scripts (qe_modes.sh,
# randomaccess_trace.sh): rounds N FN calls FN MODE ROUND for every mode of
# $modes in each of N rounds, each round starting with the next mode, so
# that no mode always runs first; x holds the mode's launcher arguments
# (-x VAR=VALUE for each word of ${env[MODE]}).
rounds() {
  local n=$1 fn=$2 i j m nm v mode_list
  read -ra mode_list <<< "$modes"
  nm=${#mode_list[@]}
  for ((i = 1; i <= n; i++)); do
    for ((j = 0; j < nm; j++)); do
      m=${mode_list[(i - 1 + j) % nm]}
      x=(); for v in ${env[$m]}; do x+=(-x "$v"); done
      "$fn" "$m" "$i"
    done
  done
}
