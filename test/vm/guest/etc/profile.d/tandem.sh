# The rpm-ostree double and its node paths, for a person on the console.
export PATH=/opt/tandem/bin:$PATH
export TANDEM_OSDOUBLE_SYSROOT=/sysroot TANDEM_OSDOUBLE_RUN=/run TANDEM_OSDOUBLE_REBOOT_FILE=/run/tandem-osdouble/reboot-requested
