"""LP Ranker on WDBC with the grid of Ataman (2007), Ch. III: C ∈ {1, 10, 100}, γ ∈ {0.01, 0.1, 1}.

Min-max scaling is fitted inside each fold (a Pipeline); model selection by cross-validated AUC.

    python examples/lp_ranker_wdbc.py
"""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler

from aucopt import LPRanker

X, y = load_breast_cancer(return_X_y=True)
y = (y == 0).astype(int)  # malignant = positive
X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=0.5, stratify=y, random_state=0)

pipe = Pipeline([("scale", MinMaxScaler()), ("rank", LPRanker(solver="highs"))])
grid = GridSearchCV(pipe, {"rank__C": [1, 10, 100], "rank__gamma": [0.01, 0.1, 1]},
                    cv=StratifiedKFold(3, shuffle=True, random_state=0), n_jobs=1)
grid.fit(X_tr, y_tr)
best = grid.best_estimator_["rank"]
print(f"best {grid.best_params_}, CV AUC {grid.best_score_:.4f}")
print(f"test AUC {grid.score(X_te, y_te):.4f}; {len(best.support_)} support vectors of {len(y_tr)} "
      f"points; LP objective {best.objective_:.4f}; solved in {best.solve_result_.wall_time:.2f} s")
