use std::process::ExitCode;

fn main() -> ExitCode {
    finch::main()
}
