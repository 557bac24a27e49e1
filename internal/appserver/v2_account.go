package appserver

func registerAccountMethods(s *Server) {}
