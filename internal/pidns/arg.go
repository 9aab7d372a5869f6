package pidns

// Arg is the first argument that makes tether's binary the init of a
// contained run's PID namespace: a program whose main hands control to
// [Main] when started so (spawn.Init does).
const Arg = "tether-init"
