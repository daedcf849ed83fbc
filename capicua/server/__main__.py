from capicua.server.app import main

main()
