fn main() {
    std::process::exit(boundgate::cli::main());
}
