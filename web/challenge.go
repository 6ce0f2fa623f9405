// Workshop challenges (package challenge): the teacher's form and view, the projector's
// leaderboard, joining by code, and the bar above a participant's copy.
//
// Who may do what: making a challenge needs the right to manage the workspace it is made from;
// the teacher's view (/c/...) needs a signed-in person (anyone in local mode), since it holds
// the hidden tasks; the leaderboard (/board/...) and joining (/join...) are open: they hold
// nothing hidden. A participant reaches their copy with an edit share link the join hands to
// their browser, and nothing else: no hidden task is in any page, stream, export or API answer
// that link opens. That link may not fork the copy or start model runs on it (teacherOnly),
// and joins, wrong codes and open leaderboard streams are bounded per client
// (challenge_join.go, board_streams.go).

package web

import "github.com/labstack/echo/v4"

// challengeRoutes adds the challenge pages. Files: challenge_teach.go (the teacher's form and
// view, the leaderboard), challenge_join.go (joining and the participant's bar).
func (s *Server) challengeRoutes(e *echo.Echo) {
	// The teacher, on the workspace the challenge is made from (manageRoutes).
	e.GET("/w/:id/challenge", s.challengeForm, s.workspaceID)
	e.POST("/w/:id/challenge", s.challengeCreate, s.workspaceID)
	// The teacher's view (reqSigned: every route not listed elsewhere).
	e.GET("/c/:cid", s.teacherView)
	e.GET("/c/:cid/stream", s.teacherStream)
	e.POST("/c/:cid/freeze", s.challengeFreeze)
	e.POST("/c/:cid/unfreeze", s.challengeUnfreeze)
	e.POST("/c/:cid/reveal", s.challengeReveal)
	e.GET("/c/:cid/results.csv", s.challengeResultsCSV)
	e.GET("/c/:cid/results.json", s.challengeResultsJSON)
	e.GET("/c/:cid/challenge.json", s.challengeFile)
	// The projector (openRoutes).
	e.GET("/board/:cid", s.leaderboard)
	e.GET("/board/:cid/stream", s.leaderboardStream)
	// Joining (openRoutes).
	e.GET("/join", s.joinCodeForm)
	e.POST("/join", s.joinCode)
	e.GET("/join/:code", s.joinNameForm)
	e.POST("/join/:code", s.joinChallenge)
}
