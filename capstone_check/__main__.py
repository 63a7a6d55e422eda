from capstone_check.cli import main

main()
