module uidrive.test/c_abi

go 1.19
