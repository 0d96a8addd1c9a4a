# Any version asked for is taken: the twin package follows the CANN 9 interface of the names it has.
set(PACKAGE_VERSION "9.0.0")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
endif()
